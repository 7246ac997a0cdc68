workspace "eShop" "Hand-written C4 model of dotnet/eShop (blind labelling)." {

    !identifiers hierarchical

    model {
        customer = person "Shopper" "Browses the catalogue, manages a basket and places and follows orders."

        aiProvider = softwareSystem "AI Model Provider" "OpenAI, Azure OpenAI or Ollama, optionally used for text embeddings and chat." {
            tags "External"
        }

        eshop = softwareSystem "eShop" "AdventureWorks reference e-commerce application built as .NET Aspire services." {

            webApp = container "Web App" "Server-side Blazor web store: catalogue, basket, checkout, orders and an AI chatbot." "ASP.NET Core, Blazor" {
                ui = component "Blazor UI" "Razor pages, layout and chatbot components of the store." "Blazor"
                services = component "Backend Clients and Order Status" "Basket gRPC client, ordering HTTP client, basket state and the integration-event handlers that push order status changes to the UI." "C#"
            }
            webAppComponents = container "Web App Components" "Razor class library shared by the web app and the hybrid app: catalogue list/search components and the catalogue HTTP client." "Razor Class Library" {
                tags "Library"
            }
            hybridApp = container "Hybrid App" "Cross-platform .NET MAUI Blazor Hybrid app showing the catalogue." ".NET MAUI, Blazor Hybrid"
            clientApp = container "Mobile Client App" "Cross-platform .NET MAUI mobile shopping app (MVVM)." ".NET MAUI"
            webhookClient = container "Webhook Client" "Sample web app that registers webhooks and shows the received notifications." "ASP.NET Core, Blazor"

            identityApi = container "Identity API" "Identity provider issuing tokens, with login, consent and user management UI." "ASP.NET Core, Duende IdentityServer"
            basketApi = container "Basket API" "Stores shopping baskets and empties them once an order is started." "ASP.NET Core, gRPC"
            catalogApi = container "Catalog API" "Catalogue of products, brands and types, with semantic search and stock handling." "ASP.NET Core Minimal APIs, EF Core" {
                api = component "Catalog Endpoints" "Minimal API endpoints for items, brands, types, pictures and search, and their OpenAPI documents." "ASP.NET Core"
                ai = component "Catalog AI" "Computes embeddings of catalogue items for semantic search." "Microsoft.Extensions.AI"
                integrationEvents = component "Catalog Integration Events" "Publishes price changes and handles order stock-validation events through the outbox." "C#"
            }
            orderingApi = container "Ordering API" "Creates and manages orders following DDD and CQRS." "ASP.NET Core Minimal APIs, MediatR, EF Core" {
                api = component "Orders Endpoints" "Minimal API endpoints to create, cancel, ship and query orders." "ASP.NET Core"
                application = component "Ordering Application Layer" "Commands, queries, validators, pipeline behaviours, domain-event and integration-event handlers." "MediatR, FluentValidation"
                domain = component "Ordering Domain Model" "Order and Buyer aggregates, domain events and seed work." "C#"
                infrastructure = component "Ordering Infrastructure" "EF Core DbContext, repositories, entity configurations, idempotency and migrations." "EF Core"
            }
            orderProcessor = container "Order Processor" "Background worker that confirms orders whose grace period has expired." ".NET Worker Service"
            paymentProcessor = container "Payment Processor" "Simulates payment for orders whose stock was confirmed." ".NET Worker Service"
            webhooksApi = container "Webhooks API" "Manages webhook subscriptions and posts order and price events to subscribers." "ASP.NET Core Minimal APIs, EF Core"

            eventBus = container "Event Bus Abstractions" "Integration event, event bus and handler abstractions shared by all services." ".NET library" {
                tags "Library"
            }
            eventBusRabbitMq = container "RabbitMQ Event Bus" "RabbitMQ implementation of the event bus with telemetry." ".NET library, RabbitMQ.Client" {
                tags "Library"
            }
            integrationEventLog = container "Integration Event Log" "EF Core outbox storing integration events and their publication state." ".NET library, EF Core" {
                tags "Library"
            }
            serviceDefaults = container "Service Defaults" "Common Aspire service defaults (telemetry, health, authentication, OpenAPI, HTTP clients) and shared source files linked into several services." ".NET library" {
                tags "Library"
            }
            appHost = container "App Host" "Aspire orchestrator declaring every service, database, cache, broker and the mobile BFF proxy." ".NET Aspire"

            redis = container "Basket Cache" "Redis holding the baskets." "Redis" {
                tags "Database"
            }
            rabbitMq = container "Message Broker" "RabbitMQ broker carrying integration events." "RabbitMQ" {
                tags "Queue"
            }
            postgres = container "Relational Databases" "PostgreSQL (pgvector) server with the catalogdb, identitydb, orderingdb and webhooksdb databases." "PostgreSQL" {
                tags "Database"
            }
        }

        customer -> eshop.webApp "Shops using" "HTTPS"
        customer -> eshop.clientApp "Shops using"
        customer -> eshop.hybridApp "Browses the catalogue with"

        eshop.webApp -> eshop.webAppComponents "Uses components from"
        eshop.hybridApp -> eshop.webAppComponents "Uses components from"
        eshop.webApp -> eshop.catalogApi "Reads the catalogue from" "HTTP"
        eshop.webApp -> eshop.basketApi "Manages baskets with" "gRPC"
        eshop.webApp -> eshop.orderingApi "Places and lists orders with" "HTTP"
        eshop.webApp -> eshop.identityApi "Authenticates users with" "OpenID Connect"
        eshop.webApp -> aiProvider "Chats with" "HTTPS"
        eshop.webApp.ui -> eshop.webApp.services "Uses"
        eshop.hybridApp -> eshop.catalogApi "Reads the catalogue from" "HTTP"
        eshop.clientApp -> eshop.catalogApi "Reads the catalogue via the mobile BFF" "HTTP"
        eshop.clientApp -> eshop.orderingApi "Manages orders via the mobile BFF" "HTTP"
        eshop.clientApp -> eshop.basketApi "Manages baskets with" "gRPC"
        eshop.clientApp -> eshop.identityApi "Authenticates with" "OpenID Connect"
        eshop.webhookClient -> eshop.webhooksApi "Registers webhooks with" "HTTP"
        eshop.webhooksApi -> eshop.webhookClient "Posts webhook notifications to" "HTTP"
        eshop.webhookClient -> eshop.identityApi "Authenticates with" "OpenID Connect"

        eshop.identityApi -> eshop.postgres "Stores users in identitydb" "EF Core"
        eshop.basketApi -> eshop.redis "Stores baskets in" "Redis protocol"
        eshop.catalogApi -> eshop.postgres "Stores the catalogue in catalogdb" "EF Core"
        eshop.catalogApi -> aiProvider "Gets embeddings from" "HTTPS"
        eshop.catalogApi.api -> eshop.catalogApi.ai "Uses for semantic search"
        eshop.catalogApi.api -> eshop.catalogApi.integrationEvents "Publishes price changes through"
        eshop.orderingApi -> eshop.postgres "Stores orders in orderingdb" "EF Core"
        eshop.orderingApi.api -> eshop.orderingApi.application "Sends commands and queries to"
        eshop.orderingApi.application -> eshop.orderingApi.domain "Manipulates"
        eshop.orderingApi.application -> eshop.orderingApi.infrastructure "Persists through"
        eshop.orderingApi.infrastructure -> eshop.orderingApi.domain "Implements repositories of"
        eshop.orderProcessor -> eshop.postgres "Polls orders in orderingdb" "Npgsql"
        eshop.webhooksApi -> eshop.postgres "Stores subscriptions in webhooksdb" "EF Core"

        eshop.basketApi -> eshop.eventBusRabbitMq "Subscribes to events with"
        eshop.catalogApi -> eshop.eventBusRabbitMq "Publishes and subscribes with"
        eshop.orderingApi -> eshop.eventBusRabbitMq "Publishes and subscribes with"
        eshop.orderProcessor -> eshop.eventBusRabbitMq "Publishes grace-period events with"
        eshop.paymentProcessor -> eshop.eventBusRabbitMq "Publishes payment results with"
        eshop.webhooksApi -> eshop.eventBusRabbitMq "Subscribes to events with"
        eshop.webApp -> eshop.eventBusRabbitMq "Subscribes to order status events with"
        eshop.eventBusRabbitMq -> eshop.eventBus "Implements"
        eshop.eventBusRabbitMq -> eshop.rabbitMq "Publishes and consumes messages on" "AMQP"
        eshop.integrationEventLog -> eshop.eventBus "Stores events defined by"
        eshop.catalogApi -> eshop.integrationEventLog "Records outgoing events in"
        eshop.orderingApi -> eshop.integrationEventLog "Records outgoing events in"
        eshop.webhooksApi -> eshop.integrationEventLog "References"

        eshop.appHost -> eshop.webApp "Orchestrates"
        eshop.appHost -> eshop.catalogApi "Orchestrates"
        eshop.appHost -> eshop.orderingApi "Orchestrates"
        eshop.appHost -> eshop.basketApi "Orchestrates"
        eshop.appHost -> eshop.identityApi "Orchestrates"
        eshop.appHost -> eshop.postgres "Provisions"
        eshop.appHost -> eshop.redis "Provisions"
        eshop.appHost -> eshop.rabbitMq "Provisions"
        eshop.webApp -> eshop.serviceDefaults "Uses"
        eshop.catalogApi -> eshop.serviceDefaults "Uses"
        eshop.orderingApi -> eshop.serviceDefaults "Uses"
        eshop.basketApi -> eshop.serviceDefaults "Uses"
        eshop.identityApi -> eshop.serviceDefaults "Uses"
    }

    views {
        container eshop "Containers" {
            include *
            autolayout lr
        }
    }
}

workspace "Online Boutique" "Hand-written C4 model of GoogleCloudPlatform/microservices-demo (blind labelling)." {

    !identifiers hierarchical

    model {
        customer = person "Customer" "A shopper who browses the catalogue, fills a cart and places orders in the web store."

        googleCloud = softwareSystem "Google Cloud managed services" "Managed services the demo can use: Gemini (generative AI), AlloyDB, Spanner, Memorystore, Secret Manager, Cloud Operations." {
            tags "External"
        }

        boutique = softwareSystem "Online Boutique" "A cloud-native e-commerce demo application made of eleven gRPC microservices written in several languages." {

            frontend = container "Frontend" "Web server that renders the shop's HTML pages, keeps the session in a cookie and calls every backend service." "Go, gorilla/mux, html/template" {
                handlers = component "HTTP Handlers" "Routes and request handlers for home, product, cart, checkout, currency, assistant and bot pages, plus logging and session middleware." "Go net/http"
                rpcClients = component "Backend RPC Clients" "Thin gRPC client wrappers around the product catalogue, currency, cart, shipping, recommendation and ad services, plus the optional packaging HTTP client." "Go, gRPC"
                templates = component "Page Templates and Static Assets" "HTML templates of the shop's pages and the images, icons and style sheets they use." "html/template, CSS"
                validation = component "Input Validation" "Validates the payloads of form posts (add to cart, place order, set currency)." "Go, validator"
            }

            checkout = container "Checkout Service" "Retrieves the cart, prepares the order and orchestrates payment, shipping and the e-mail notification." "Go, gRPC" {
                orderFlow = component "Order Placement Flow" "PlaceOrder: gets the cart, converts prices, quotes shipping, charges the card, ships the order, empties the cart and sends the confirmation." "Go"
            }

            cart = container "Cart Service" "Stores the items of each user's shopping cart." "C#, ASP.NET Core, gRPC" {
                cartApi = component "Cart gRPC Service" "Implements the CartService and health-check gRPC endpoints." "C#, gRPC"
                cartStore = component "Cart Store" "Cart persistence abstraction with Redis, Spanner and AlloyDB implementations." "C#"
            }

            productCatalog = container "Product Catalog Service" "Serves the product list from a JSON file (or AlloyDB) and supports search." "Go, gRPC"
            currency = container "Currency Service" "Converts money between currencies using exchange rates; the most called service." "Node.js, gRPC"
            payment = container "Payment Service" "Charges the given credit card (mock) and returns a transaction id." "Node.js, gRPC"
            shipping = container "Shipping Service" "Estimates shipping costs from the cart and ships orders to an address (mock)." "Go, gRPC"
            email = container "Email Service" "Sends users an order confirmation e-mail (mock)." "Python, gRPC"
            recommendation = container "Recommendation Service" "Recommends other products based on what is in the cart." "Python, gRPC"
            ad = container "Ad Service" "Serves text ads based on given context words." "Java, gRPC"
            shoppingAssistant = container "Shopping Assistant Service" "Suggests products from the catalogue for an uploaded room picture using Gemini and an AlloyDB vector store." "Python, Flask, LangChain"
            loadGenerator = container "Load Generator" "Continuously sends requests imitating realistic shopping flows to the frontend." "Python, Locust"
            redis = container "Cart Database" "In-memory store holding the carts." "Redis" {
                tags "Database"
            }

            protos = container "gRPC API Definitions" "Protocol Buffers service contracts shared by all services, and the per-language code generated from them." "Protocol Buffers"

            k8sManifests = container "Kubernetes Manifests" "Plain Kubernetes and Istio manifests that deploy every service, plus the released single-file manifests." "Kubernetes YAML"
            kustomize = container "Kustomize Configuration" "Kustomize base and optional components (Memorystore, Spanner, AlloyDB, Istio, network policies, shopping assistant, ...)." "Kustomize"
            helmChart = container "Helm Chart" "Helm chart deploying the services with configurable options." "Helm"
            terraform = container "Terraform Infrastructure" "Provisions a GKE cluster (and optionally Memorystore) and deploys the app." "Terraform"
        }

        customer -> boutique.frontend "Shops using" "HTTPS"
        boutique.loadGenerator -> boutique.frontend "Sends simulated shopping traffic to" "HTTP"

        boutique.frontend -> boutique.productCatalog "Lists and gets products from" "gRPC"
        boutique.frontend -> boutique.currency "Converts prices with" "gRPC"
        boutique.frontend -> boutique.cart "Reads and updates carts in" "gRPC"
        boutique.frontend -> boutique.recommendation "Gets recommendations from" "gRPC"
        boutique.frontend -> boutique.shipping "Gets shipping quotes from" "gRPC"
        boutique.frontend -> boutique.checkout "Places orders with" "gRPC"
        boutique.frontend -> boutique.ad "Gets ads from" "gRPC"
        boutique.frontend -> boutique.shoppingAssistant "Asks for product suggestions" "HTTP"

        boutique.frontend.handlers -> boutique.frontend.rpcClients "Calls backends through"
        boutique.frontend.handlers -> boutique.frontend.templates "Renders pages with"
        boutique.frontend.handlers -> boutique.frontend.validation "Validates form input with"

        boutique.checkout -> boutique.cart "Gets and empties carts in" "gRPC"
        boutique.checkout -> boutique.productCatalog "Gets product prices from" "gRPC"
        boutique.checkout -> boutique.currency "Converts prices with" "gRPC"
        boutique.checkout -> boutique.shipping "Quotes and ships orders with" "gRPC"
        boutique.checkout -> boutique.payment "Charges cards with" "gRPC"
        boutique.checkout -> boutique.email "Sends confirmations with" "gRPC"

        boutique.recommendation -> boutique.productCatalog "Lists products from" "gRPC"
        boutique.cart.cartApi -> boutique.cart.cartStore "Reads and writes carts through"
        boutique.cart -> boutique.redis "Stores carts in" "Redis protocol"
        boutique.cart -> googleCloud "Optionally stores carts in Spanner or AlloyDB"
        boutique.productCatalog -> googleCloud "Optionally loads the catalogue from AlloyDB"
        boutique.shoppingAssistant -> googleCloud "Uses Gemini and an AlloyDB vector store"

        boutique.k8sManifests -> boutique.frontend "Deploys"
        boutique.kustomize -> boutique.k8sManifests "Is an alternative, composable form of"
        boutique.helmChart -> boutique.frontend "Deploys"
        boutique.terraform -> boutique.kustomize "Provisions a cluster and applies"
    }

    views {
        systemContext boutique "Context" {
            include *
            autolayout lr
        }
        container boutique "Containers" {
            include *
            autolayout lr
        }
    }
}

/*
 * The bundled example: a small web shop, modelled in Structurizr DSL with the code
 * each element owns (archmem.paths). `archmem model --repo examples/shop` reads it.
 */
workspace "Shop" "A small web shop: storefront, API gateway, order and payment services." {

    !identifiers hierarchical
    !adrs docs/adr

    model {
        customer = person "Customer" "Buys things through the storefront."
        operator = person "Operator" "Runs the shop: refunds, stock, prices."

        shop = softwareSystem "Shop" "Sells products online." {
            storefront = container "Storefront" "The web front end customers browse and check out in." "TypeScript" {
                tags "Web"
                properties {
                    "archmem.paths" "web/**"
                }
            }
            gateway = container "API Gateway" "Routes requests, checks tokens, limits rates." "Go" {
                properties {
                    "archmem.paths" "services/gateway/**"
                }
                router = component "Router" "Maps public routes to internal services." "Go" {
                    properties {
                        "archmem.paths" "services/gateway/router.go"
                    }
                }
                auth = component "TokenVerifier" "Verifies customer session tokens and operator API keys." "Go" {
                    properties {
                        "archmem.paths" "services/gateway/auth/**"
                    }
                }
            }
            orders = container "Order Service" "Owns carts and orders." "Python" {
                checkout = component "OrderProcessor" "Validates carts and turns them into orders at checkout; reserves stock." "Python" {
                    properties {
                        "archmem.paths" "services/orders/checkout/**"
                    }
                }
                pricing = component "PricingEngine" "Computes prices, discounts and tax for a cart." "Python" {
                    properties {
                        "archmem.paths" "services/orders/pricing/**"
                    }
                }
            }
            payments = container "Payment Service" "Charges cards through the payment provider and records refunds." "Python" {
                properties {
                    "archmem.paths" "services/payments/**"
                }
            }
            database = container "Orders Database" "Orders, carts, payments." "PostgreSQL" {
                tags "Database"
                properties {
                    "archmem.paths" "db/migrations/**"
                }
            }
        }

        psp = softwareSystem "Payment Provider" "Card payments (external)." {
            tags "External"
        }

        customer -> shop.storefront "Browses and buys" "HTTPS"
        operator -> shop.gateway "Manages the shop" "HTTPS"
        shop.storefront -> shop.gateway.router "Calls" "JSON/HTTPS"
        shop.gateway.router -> shop.gateway.auth "Verifies tokens with"
        shop.gateway.router -> shop.orders.checkout "Forwards checkout to" "HTTP"
        shop.orders.checkout -> shop.orders.pricing "Prices carts with"
        shop.orders.checkout -> shop.payments "Requests payment from" "HTTP"
        shop.orders -> shop.database "Reads and writes" "SQL"
        shop.payments -> shop.database "Records payments in" "SQL"
        shop.payments -> psp "Charges cards with" "HTTPS"
    }

    views {
        systemContext shop {
            include *
            autolayout lr
        }
        container shop {
            include *
            autolayout lr
        }
        styles {
            element "Database" {
                shape cylinder
            }
        }
    }
}

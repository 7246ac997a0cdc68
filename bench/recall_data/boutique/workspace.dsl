/*
 * Online Boutique (GoogleCloudPlatform/microservices-demo at 34ffea9), modelled by us for
 * archmem's second recall quality set. The repository ships no C4 model; this one is our
 * own reading of its code: one container per service in src/<service>/, the deployment
 * configuration as a container of its own, and the shared files (CI, docs, protos,
 * build configuration at the root) owned by the system itself.
 */
workspace "Online Boutique" "A cloud-native demo web shop: eleven microservices talking gRPC on Kubernetes." {

    !identifiers hierarchical

    model {
        shopper = person "Shopper" "Browses the catalog, fills a cart and places orders in a browser."
        maintainer = person "Maintainer" "Releases the demo and keeps its deployment options working."

        boutique = softwareSystem "Online Boutique" "The demo web shop: microservices in five languages that talk gRPC, deployed to Kubernetes." {
            properties {
                "archmem.paths" ".github/**, docs/**, .deploystack/**, protos/**, *.md, *.yaml, LICENSE, .gitignore, .gitattributes, .editorconfig"
            }

            frontend = container "Frontend" "Serves the storefront web pages over HTTP and calls every backend to render them." "Go" {
                tags "Web"
                properties {
                    "archmem.paths" "src/frontend/**"
                }
                handlers = component "Page handlers" "HTTP handlers for the home, product, cart, place-order and set-currency pages." "Go, gorilla/mux" {
                    properties {
                        "archmem.paths" "src/frontend/handlers.go, src/frontend/main.go"
                    }
                }
                rpc = component "Backend clients" "gRPC calls from the web tier to the catalog, cart, currency, shipping, recommendation and ad backends." "Go, gRPC" {
                    properties {
                        "archmem.paths" "src/frontend/rpc.go"
                    }
                }
                middleware = component "Request middleware" "Request logging, request ids and the session cookie." "Go" {
                    properties {
                        "archmem.paths" "src/frontend/middleware.go"
                    }
                }
                validator = component "Form validation" "Checks the add-to-cart, place-order and currency forms before any backend is called." "Go, go-playground/validator" {
                    properties {
                        "archmem.paths" "src/frontend/validator/**"
                    }
                }
                templates = component "Page templates" "HTML templates, stylesheets and images of the storefront." "Go html/template, CSS" {
                    properties {
                        "archmem.paths" "src/frontend/templates/**, src/frontend/static/**"
                    }
                }
            }

            checkout = container "Checkout Service" "Places an order: reads the cart, prices the items, charges the card, ships and sends the confirmation." "Go" {
                properties {
                    "archmem.paths" "src/checkoutservice/**"
                }
                money = component "Money arithmetic" "Adds and multiplies amounts held as units and nanos." "Go" {
                    properties {
                        "archmem.paths" "src/checkoutservice/money/**"
                    }
                }
            }

            cart = container "Cart Service" "Keeps the items in each shopper's basket." "C#, .NET" {
                properties {
                    "archmem.paths" "src/cartservice/**"
                }
                cartstore = component "Cart stores" "Interchangeable basket storage: Redis, Spanner or AlloyDB, or in process memory when none is configured." "C#" {
                    properties {
                        "archmem.paths" "src/cartservice/src/cartstore/**"
                    }
                }
            }

            redis = container "Redis cart cache" "The default in-cluster key-value store holding baskets." "Redis" {
                tags "Database"
            }

            catalog = container "Product Catalog Service" "Lists, looks up and searches the products sold, loaded from a JSON file or a database." "Go" {
                properties {
                    "archmem.paths" "src/productcatalogservice/**"
                }
            }

            currency = container "Currency Service" "Converts money amounts between currencies with fixed exchange rates; the most called backend." "Node.js" {
                properties {
                    "archmem.paths" "src/currencyservice/**"
                }
            }

            payment = container "Payment Service" "Validates a credit card and pretends to charge it, returning a transaction id." "Node.js" {
                properties {
                    "archmem.paths" "src/paymentservice/**"
                }
            }

            shipping = container "Shipping Service" "Quotes delivery costs for a basket and issues parcel tracking ids." "Go" {
                properties {
                    "archmem.paths" "src/shippingservice/**"
                }
            }

            email = container "Email Service" "Renders the order confirmation message and pretends to mail it." "Python" {
                properties {
                    "archmem.paths" "src/emailservice/**"
                }
            }

            recommendation = container "Recommendation Service" "Suggests other products to look at, given what the shopper is viewing." "Python" {
                properties {
                    "archmem.paths" "src/recommendationservice/**"
                }
            }

            ads = container "Ad Service" "Serves text advertisements matched to page context words." "Java" {
                properties {
                    "archmem.paths" "src/adservice/**"
                }
            }

            assistant = container "Shopping Assistant" "Answers interior-design questions with product suggestions from a language model and a vector search." "Python, LangChain" {
                properties {
                    "archmem.paths" "src/shoppingassistantservice/**"
                }
            }

            loadgenerator = container "Load Generator" "Simulates shoppers clicking through the site to produce realistic traffic." "Python, Locust" {
                properties {
                    "archmem.paths" "src/loadgenerator/**"
                }
            }

            deploy = container "Deployment configuration" "Everything that runs the services on a cluster: manifests, overlays, the chart and the cloud infrastructure." "Kubernetes YAML" {
                properties {
                    "archmem.paths" "kubernetes-manifests/**, kustomize/**, helm-chart/**, istio-manifests/**, terraform/**, release/**"
                }
                kustomize = component "Kustomize variations" "Optional overlays that swap storage, branding, mesh or telemetry settings on the base manifests." "Kustomize" {
                    properties {
                        "archmem.paths" "kustomize/**"
                    }
                }
                helm = component "Helm chart" "A packaged chart with a values file for every service." "Helm" {
                    properties {
                        "archmem.paths" "helm-chart/**"
                    }
                }
                terraform = component "Terraform" "Creates the GKE cluster and the optional Memorystore instance." "Terraform" {
                    properties {
                        "archmem.paths" "terraform/**"
                    }
                }
                manifests = component "Plain manifests" "The ready-to-apply YAML files, the mesh gateway and the released bundles." "Kubernetes YAML" {
                    properties {
                        "archmem.paths" "kubernetes-manifests/**, istio-manifests/**, release/**"
                    }
                }
            }
        }

        alloydb = softwareSystem "AlloyDB" "Managed PostgreSQL on Google Cloud, optional store for carts, products and vectors." {
            tags "External"
        }
        spanner = softwareSystem "Cloud Spanner" "Managed distributed SQL on Google Cloud, optional store for carts." {
            tags "External"
        }
        gemini = softwareSystem "Gemini API" "Google's generative language and vision models (external)." {
            tags "External"
        }

        shopper -> boutique.frontend "Browses and buys" "HTTPS"
        maintainer -> boutique.deploy "Deploys and releases with"
        boutique.loadgenerator -> boutique.frontend "Sends simulated shopper traffic to" "HTTP"
        boutique.frontend.handlers -> boutique.frontend.validator "Validates forms with"
        boutique.frontend.handlers -> boutique.frontend.rpc "Calls backends through"
        boutique.frontend.rpc -> boutique.catalog "Lists and looks up products with" "gRPC"
        boutique.frontend.rpc -> boutique.currency "Converts prices with" "gRPC"
        boutique.frontend.rpc -> boutique.cart "Reads and changes carts in" "gRPC"
        boutique.frontend.rpc -> boutique.recommendation "Asks for recommendations" "gRPC"
        boutique.frontend.rpc -> boutique.shipping "Asks for shipping quotes" "gRPC"
        boutique.frontend.rpc -> boutique.ads "Asks for ads" "gRPC"
        boutique.frontend.rpc -> boutique.checkout "Places orders through" "gRPC"
        boutique.frontend -> boutique.assistant "Forwards assistant questions to" "HTTP"
        boutique.checkout -> boutique.cart "Reads and empties the cart in" "gRPC"
        boutique.checkout -> boutique.catalog "Looks up ordered products in" "gRPC"
        boutique.checkout -> boutique.currency "Converts prices and shipping with" "gRPC"
        boutique.checkout -> boutique.shipping "Gets a quote and ships with" "gRPC"
        boutique.checkout -> boutique.payment "Charges the card with" "gRPC"
        boutique.checkout -> boutique.email "Sends the confirmation with" "gRPC"
        boutique.checkout -> boutique.checkout.money "Sums the order total with"
        boutique.cart.cartstore -> boutique.redis "Stores baskets in" "RESP"
        boutique.cart.cartstore -> spanner "Stores baskets in (optional)" "gRPC"
        boutique.cart.cartstore -> alloydb "Stores baskets in (optional)" "PostgreSQL"
        boutique.catalog -> alloydb "Loads products from (optional)" "PostgreSQL"
        boutique.recommendation -> boutique.catalog "Lists candidate products from" "gRPC"
        boutique.assistant -> alloydb "Searches product vectors in" "PostgreSQL, pgvector"
        boutique.assistant -> gemini "Describes rooms and writes answers with" "HTTPS"
        boutique.deploy -> boutique.redis "Runs"
    }

    views {
        systemContext boutique {
            include *
            autolayout lr
        }
        container boutique {
            include *
            autolayout lr
        }
    }
}

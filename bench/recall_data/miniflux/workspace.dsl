/*
 * Miniflux (miniflux/v2 at 106cdd0), modelled by us for archmem's held-out recall set:
 * a self-hosted feed reader, a domain unlike the two shop sets. The repository ships no
 * C4 model; this one is our own reading of its Go packages: one container per concern
 * under internal/, components for the parts of the feed reader, the web interface and
 * the storage layer, and the shared files (CI, contributor docs, root build files) owned
 * by the system itself.
 */
workspace "Miniflux" "A minimalist, self-hosted feed reader written in Go on top of PostgreSQL." {

    !identifiers hierarchical

    model {
        subscriber = person "Subscriber" "Follows websites and podcasts, reads and stars articles in a browser or a phone app."
        operator = person "Operator" "Installs, configures and upgrades a Miniflux instance for themselves or a group."

        miniflux = softwareSystem "Miniflux" "The feed reader: polls subscribed feeds, keeps their articles in PostgreSQL and serves them to people and apps." {
            properties {
                "archmem.paths" ".github/**, .devcontainer/**, *.md, LICENSE, Makefile, Procfile, go.mod, go.sum, .golangci.yml, .gitignore, miniflux.1"
            }

            webui = container "Web interface" "Server-rendered pages for reading, organizing and configuring subscriptions, with keyboard shortcuts and an installable offline shell." "Go net/http, html/template" {
                tags "Web"
                properties {
                    "archmem.paths" "internal/ui/**, internal/template/**, internal/locale/**, internal/oauth2/**"
                }
                templates = component "Templates and assets" "HTML views, stylesheet themes, scripts and icons compiled into the binary and bundled at start-up." "html/template, JavaScript, CSS" {
                    properties {
                        "archmem.paths" "internal/template/**, internal/ui/static/**"
                    }
                }
                signin = component "Sign-in and browser sessions" "Password, passkey, single sign-on and reverse-proxy login, session cookies and request forgery checks." "Go, go-webauthn, go-oidc" {
                    properties {
                        "archmem.paths" "internal/oauth2/**, internal/ui/auth.go, internal/ui/auth_proxy_middleware.go, internal/ui/csrf_middleware.go, internal/ui/web_session_middleware.go, internal/ui/login_check.go, internal/ui/login_show.go, internal/ui/logout.go, internal/ui/oauth2_callback.go, internal/ui/oauth2_redirect.go, internal/ui/oauth2_unlink.go, internal/ui/webauthn.go, internal/ui/session_list.go, internal/ui/session_remove.go"
                    }
                }
            }

            api = container "REST API" "The JSON interface under /v1 for scripts and apps, with the Go client library that mirrors it." "Go, JSON" {
                properties {
                    "archmem.paths" "internal/api/**, client/**"
                }
            }

            fever = container "Fever endpoint" "Emulates the old Fever protocol so legacy mobile readers can sync." "Go, JSON" {
                properties {
                    "archmem.paths" "internal/fever/**"
                }
            }

            greader = container "Google Reader endpoint" "Emulates the Google Reader protocol used by most third-party reading apps." "Go, JSON" {
                properties {
                    "archmem.paths" "internal/googlereader/**"
                }
            }

            reader = container "Feed engine" "Turns a subscription into stored articles: downloads, parses, cleans and enriches what publishers emit." "Go" {
                properties {
                    "archmem.paths" "internal/reader/**"
                }
                fetcher = component "Outgoing HTTP fetcher" "Builds and sends outbound requests to publishers, through optional proxies, and classifies their failures." "Go net/http" {
                    properties {
                        "archmem.paths" "internal/reader/fetcher/**, internal/proxyrotator/**"
                    }
                }
                parsers = component "Syndication parsers" "Reads RSS, Atom, RDF and JSON Feed documents, their dates, encodings and media extensions into one internal shape." "Go encoding/xml" {
                    properties {
                        "archmem.paths" "internal/reader/parser/**, internal/reader/atom/**, internal/reader/rss/**, internal/reader/rdf/**, internal/reader/json/**, internal/reader/xml/**, internal/reader/date/**, internal/reader/dublincore/**, internal/reader/encoding/**, internal/reader/media/**, internal/reader/itunes/**, internal/reader/googleplay/**, internal/reader/language/**"
                    }
                }
                processor = component "Article pipeline" "Applies per-feed rules to each new article: filtering, link cleanup, full-text extraction, rewriting and duration estimates." "Go, goquery" {
                    properties {
                        "archmem.paths" "internal/reader/processor/**, internal/reader/filter/**, internal/reader/rewrite/**, internal/reader/scraper/**, internal/reader/readability/**, internal/reader/readingtime/**, internal/reader/urlcleaner/**"
                    }
                }
                sanitizer = component "HTML sanitizer" "Strips unsafe markup from third-party HTML and keeps an allow-list of tags, attributes, schemes and embeds." "Go x/net/html" {
                    properties {
                        "archmem.paths" "internal/reader/sanitizer/**"
                    }
                }
                discovery = component "Subscription discovery" "Finds the feeds behind a website address, fetches site icons and moves subscription lists in and out as OPML." "Go, goquery" {
                    properties {
                        "archmem.paths" "internal/reader/subscription/**, internal/reader/icon/**, internal/reader/opml/**"
                    }
                }
            }

            worker = container "Refresh worker pool" "A fixed set of goroutines that take refresh jobs from a queue and run them in the background." "Go" {
                properties {
                    "archmem.paths" "internal/worker/**"
                }
            }

            cli = container "Command line and daemon" "The binary's entry point: flags, admin commands, the polling and housekeeping schedulers, and process lifecycle." "Go" {
                properties {
                    "archmem.paths" "main.go, internal/cli/**, internal/systemd/**, internal/version/**"
                }
            }

            config = container "Configuration" "Reads environment variables and an optional file into typed, validated options with defaults." "Go" {
                properties {
                    "archmem.paths" "internal/config/**"
                }
            }

            storage = container "Storage layer" "All SQL: queries, query builders and transactions over users, feeds, entries, icons and sessions." "Go database/sql, lib/pq" {
                properties {
                    "archmem.paths" "internal/storage/**, internal/database/**"
                }
                migrations = component "Schema migrations" "The ordered list of schema changes and the connection pool set-up." "Go, SQL" {
                    properties {
                        "archmem.paths" "internal/database/**"
                    }
                }
            }

            database = container "PostgreSQL" "The relational database holding everything, including full-text search vectors." "PostgreSQL" {
                tags "Database"
            }

            http = container "HTTP server and helpers" "Listeners, TLS, the top-level router, health probes, metrics, and the request and response helpers every handler uses." "Go net/http, Prometheus" {
                properties {
                    "archmem.paths" "internal/http/**, internal/metric/**"
                }
            }

            integrations = container "Third-party integrations" "Sends saved or newly arrived articles to bookmarking, read-later, chat and notification services." "Go" {
                properties {
                    "archmem.paths" "internal/integration/**"
                }
            }

            mediaproxy = container "Media proxy" "Rewrites image, audio and video addresses so the server relays them instead of the reader's browser." "Go" {
                properties {
                    "archmem.paths" "internal/mediaproxy/**"
                }
            }

            model = container "Domain model and validation" "The shared structs for users, feeds, entries and settings, and the checks applied to incoming requests." "Go" {
                properties {
                    "archmem.paths" "internal/model/**, internal/validator/**"
                }
            }

            packaging = container "Packaging and deployment recipes" "Container images, distribution packages, service units and community deployment examples." "Docker, Debian, RPM, systemd" {
                properties {
                    "archmem.paths" "packaging/**, contrib/**"
                }
            }
        }

        publishers = softwareSystem "Publishers" "Websites, blogs, podcasts and video platforms that expose feeds and pages." {
            tags "External"
        }
        apps = softwareSystem "Third-party reading apps" "Mobile and desktop readers that sync with an instance through a compatible protocol." {
            tags "External"
        }
        services = softwareSystem "Bookmarking and messaging services" "Read-later, bookmarking, chat and push-notification services reached over HTTP." {
            tags "External"
        }
        identity = softwareSystem "Identity provider" "Google or any OpenID Connect issuer used for single sign-on." {
            tags "External"
        }

        subscriber -> miniflux.webui "Reads and manages subscriptions with" "HTTPS"
        subscriber -> apps "Reads on the go with"
        operator -> miniflux.cli "Runs and administers"
        operator -> miniflux.packaging "Installs with"
        apps -> miniflux.greader "Syncs through" "HTTPS"
        apps -> miniflux.fever "Syncs through" "HTTPS"
        apps -> miniflux.api "Syncs through" "HTTPS, JSON"
        miniflux.http -> miniflux.webui "Routes browser requests to"
        miniflux.http -> miniflux.api "Routes /v1 requests to"
        miniflux.http -> miniflux.fever "Routes /fever requests to"
        miniflux.http -> miniflux.greader "Routes /reader/api/0 requests to"
        miniflux.cli -> miniflux.config "Loads options with"
        miniflux.cli -> miniflux.http "Starts"
        miniflux.cli -> miniflux.worker "Starts and feeds scheduled jobs to"
        miniflux.cli -> miniflux.storage.migrations "Upgrades the schema with"
        miniflux.cli -> miniflux.storage "Selects feeds due for a refresh and cleans up in"
        miniflux.worker -> miniflux.reader "Refreshes each feed with"
        miniflux.webui -> miniflux.reader "Subscribes, refreshes and downloads full articles with"
        miniflux.webui -> miniflux.worker "Queues manual refreshes in"
        miniflux.webui -> miniflux.storage "Reads and writes user data in"
        miniflux.webui -> miniflux.mediaproxy "Rewrites media addresses with"
        miniflux.webui -> miniflux.integrations "Saves articles to"
        miniflux.webui.signin -> identity "Delegates login to" "OAuth2, OIDC"
        miniflux.webui -> miniflux.webui.templates "Renders pages with"
        miniflux.api -> miniflux.reader "Subscribes and refreshes with"
        miniflux.api -> miniflux.worker "Queues refreshes in"
        miniflux.api -> miniflux.storage "Reads and writes user data in"
        miniflux.api -> miniflux.mediaproxy "Rewrites media addresses with"
        miniflux.api -> miniflux.integrations "Saves articles to"
        miniflux.api -> miniflux.model "Validates requests with"
        miniflux.fever -> miniflux.storage "Reads entries and marks them in"
        miniflux.greader -> miniflux.storage "Reads entries and marks them in"
        miniflux.greader -> miniflux.reader "Subscribes with"
        miniflux.reader -> miniflux.reader.fetcher "Downloads feeds with"
        miniflux.reader -> miniflux.reader.parsers "Parses feeds with"
        miniflux.reader -> miniflux.reader.processor "Processes new articles with"
        miniflux.reader -> miniflux.reader.discovery "Finds feeds and icons with"
        miniflux.reader -> miniflux.storage "Stores feeds and entries in"
        miniflux.reader -> miniflux.integrations "Pushes new entries to"
        miniflux.reader.processor -> miniflux.reader.sanitizer "Cleans content with"
        miniflux.reader.processor -> miniflux.reader.fetcher "Downloads article pages with"
        miniflux.reader.discovery -> miniflux.reader.fetcher "Probes websites with"
        miniflux.reader.discovery -> miniflux.reader.parsers "Recognizes feed formats with"
        miniflux.reader.parsers -> miniflux.reader.sanitizer "Shortens text with"
        miniflux.reader.fetcher -> publishers "Downloads feeds and pages from" "HTTP(S)"
        miniflux.mediaproxy -> publishers "Relays images and media from" "HTTP(S)"
        miniflux.integrations -> services "Sends articles to" "HTTPS"
        miniflux.storage -> miniflux.database "Reads and writes" "SQL"
        miniflux.storage -> miniflux.model "Maps rows to"
        miniflux.storage.migrations -> miniflux.database "Alters the schema of" "SQL"
        miniflux.reader -> miniflux.config "Reads fetch and scheduling options from"
        miniflux.http -> miniflux.config "Reads listener and proxy options from"
        miniflux.packaging -> miniflux.cli "Packages and runs"
    }

    views {
        systemContext miniflux {
            include *
            autolayout lr
        }
        container miniflux {
            include *
            autolayout lr
        }
    }
}

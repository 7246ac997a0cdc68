/*
 * Mealie (mealie-recipes/mealie at b5643a9), modelled by us for archmem's recall
 * benchmark: a self-hosted recipe manager and meal planner, a domain unlike the shops,
 * the feed reader, the cron monitor and the analytics set. The repository ships no C4
 * model; this one is our own reading of it: one container per backend layer (routes,
 * services, schemas, data access, settings), the Nuxt web app, the image, the docs site
 * and the test suites, components for the parts people work on most, and the shared
 * files (CI, root files, dependency manifests, developer tooling) owned by the system.
 */
workspace "Mealie" "A self-hosted recipe manager with meal planning and shopping lists, written in Python (FastAPI) and Vue (Nuxt)." {

    !identifiers hierarchical

    model {
        cook = person "Household member" "Collects recipes from the web, plans the week's meals and ticks off the shopping list on a phone."
        admin = person "Instance admin" "Runs the server with Docker, manages groups, households and users, and takes backups."

        mealie = softwareSystem "Mealie" "Stores a group's recipes, imports them from websites and other apps, plans meals per household and turns them into shopping lists." {
            properties {
                "archmem.paths" ".github/**, *.md, LICENSE, .gitignore, .gitattributes, .dockerignore, .pre-commit-config.yaml, .pylintrc, pyproject.toml, poetry.lock, Taskfile.yml, renovate.json, cliff.toml, .devcontainer/**, .vscode/**, dev/**"
            }

            api = container "REST API" "The FastAPI application: class-based controllers grouped by area, the routers that decide who may call them, and the startup that wires migrations and background jobs." "Python, FastAPI" {
                properties {
                    "archmem.paths" "mealie/routes/**, mealie/app.py, mealie/main.py, mealie/core/dependencies/**, mealie/core/exceptions.py"
                }
                auth = component "Sign-in and tokens" "Password, directory and single sign-on logins that end in a signed bearer token, plus long-lived personal tokens and password resets." "PyJWT, Authlib, python-ldap, bcrypt" {
                    properties {
                        "archmem.paths" "mealie/core/security/**, mealie/routes/auth/**, mealie/routes/users/api_tokens.py, mealie/routes/users/forgot_password.py, mealie/services/user_services/password_reset_service.py"
                    }
                }
                recipes = component "Recipe endpoints" "Creating, editing, importing and exporting dishes, their pictures, comments and history." "FastAPI" {
                    properties {
                        "archmem.paths" "mealie/routes/recipe/**, mealie/routes/media/**, mealie/services/recipe/**"
                    }
                }
                explore = component "Public explore and sharing" "Read-only pages and endpoints for anonymous visitors, expiring share links, and the single-page shell with link-preview tags." "FastAPI, BeautifulSoup" {
                    properties {
                        "archmem.paths" "mealie/routes/explore/**, mealie/routes/spa/**, mealie/routes/recipe/shared_routes.py"
                    }
                }
            }

            core = container "Settings and logging" "Reads environment variables and secret files into one settings object, picks the database provider and configures logging; also the small maintenance scripts." "pydantic-settings" {
                properties {
                    "archmem.paths" "mealie/core/settings/**, mealie/core/config.py, mealie/core/logger/**, mealie/core/root_logger.py, mealie/core/release_checker.py, mealie/scripts/**"
                }
            }

            services = container "Domain services" "Business logic behind the routes: importing, parsing, notifications, mail, backups, background jobs, images and translations of server-side text." "Python" {
                properties {
                    "archmem.paths" "mealie/services/**, mealie/pkgs/**, mealie/lang/**, mealie/assets/**"
                }
                scraper = component "Recipe scraper" "Downloads a web page defensively and turns its structured or plain content into a dish, trying several strategies in turn." "recipe-scrapers, httpx, extruct" {
                    properties {
                        "archmem.paths" "mealie/services/scraper/**, mealie/pkgs/safehttp/**"
                    }
                }
                parser = component "Ingredient parsers" "Splits free-text ingredient lines into amount, unit, food and note, and matches them to the known foods and units." "CRF++, rapidfuzz" {
                    properties {
                        "archmem.paths" "mealie/services/parser_services/**, mealie/routes/parser/**"
                    }
                }
                openai = component "Language model assistant" "Prompts a hosted or self-hosted large language model to read pages, photos and ingredient lines when the other tools fall short." "openai SDK" {
                    properties {
                        "archmem.paths" "mealie/services/openai/**, mealie/schema/openai/**"
                    }
                }
                backups = component "Backups and restore" "Archives the whole database and data folder into a portable zip and rebuilds an instance from one." "SQLAlchemy, alembic" {
                    properties {
                        "archmem.paths" "mealie/services/backups_v2/**, mealie/db/fixes/**, mealie/routes/admin/admin_backups.py"
                    }
                }
                importers = component "Importers" "Reads export archives from other cookbook apps and converts their entries, with a per-entry report." "Python" {
                    properties {
                        "archmem.paths" "mealie/services/migrations/**, mealie/routes/groups/controller_migrations.py"
                    }
                }
                events = component "Event bus and notifiers" "Publishes domain events after a request finishes and fans them out to push services and outgoing hooks; also outgoing mail." "Apprise, smtplib" {
                    properties {
                        "archmem.paths" "mealie/services/event_bus_service/**, mealie/services/email/**, mealie/routes/households/controller_group_notifications.py, mealie/routes/households/controller_webhooks.py"
                    }
                }
                scheduler = component "Background jobs" "Runs housekeeping callbacks every few minutes, every hour and once a day at a configured time." "asyncio" {
                    properties {
                        "archmem.paths" "mealie/services/scheduler/**"
                    }
                }
            }

            schema = container "API schemas" "The typed request and response models shared by routes, services and repositories, and the source of the generated frontend types." "pydantic v2" {
                properties {
                    "archmem.paths" "mealie/schema/**"
                }
                queries = component "Paging and filtering" "The list parameters every collection endpoint accepts: page size, sort order, seeded shuffles and a small boolean expression language over fields." "pydantic, SQLAlchemy" {
                    properties {
                        "archmem.paths" "mealie/schema/response/**, mealie/schema/cookbook/**, mealie/schema/meal_plan/plan_rules.py"
                    }
                }
            }

            data = container "Data access" "Repositories scoped to a group and household, the seeders and the per-area data services." "SQLAlchemy 2" {
                properties {
                    "archmem.paths" "mealie/repos/**, mealie/db/**, mealie/services/household_services/**"
                }
                models = component "ORM models and revisions" "Table definitions with their custom column types and the ordered chain of schema revisions applied at startup." "SQLAlchemy, alembic" {
                    properties {
                        "archmem.paths" "mealie/db/models/**, mealie/db/init_db.py, mealie/db/db_setup.py, alembic/**, alembic.ini"
                    }
                }
            }

            frontend = container "Web app" "The browser interface, built ahead of time into static files that the backend serves, installable on phones." "Nuxt 2, Vue 2, Vuetify, TypeScript" {
                tags "Web"
                properties {
                    "archmem.paths" "frontend/**"
                }
                client = component "Typed API client" "Classes wrapping every backend resource with typed calls, plus the shared cached lists components read from." "TypeScript, axios" {
                    properties {
                        "archmem.paths" "frontend/lib/api/**, frontend/composables/api/**, frontend/composables/store/**"
                    }
                }
                recipeui = component "Recipe screens" "Viewing, editing, cooking, printing and creating dishes, and the line-by-line ingredient review." "Vue" {
                    properties {
                        "archmem.paths" "frontend/components/Domain/Recipe/**, frontend/pages/g/**, frontend/composables/recipes/**, frontend/composables/recipe-page/**"
                    }
                }
                shopping = component "Shopping list screen" "The list people carry into the store: grouped sections, ticking items off, working without signal." "Vue" {
                    properties {
                        "archmem.paths" "frontend/pages/shopping-lists/**, frontend/components/Domain/ShoppingList/**, frontend/composables/use-shopping-list-item-actions.ts"
                    }
                }
                i18n = component "Translations" "Interface and server message catalogues in dozens of languages, synchronised with a hosted translation platform." "vue-i18n, Crowdin" {
                    properties {
                        "archmem.paths" "frontend/lang/**, frontend/composables/use-locales/**, mealie/lang/**, mealie/pkgs/i18n/**, crowdin.yml"
                    }
                }
            }

            docker = container "Container image" "The published image: a multi-stage build bundling the static UI, the Python environment and the tagger binary, with a start script and compose examples." "Docker, uvicorn" {
                properties {
                    "archmem.paths" "docker/**"
                }
            }

            docs = container "Documentation site" "Installation, configuration and usage guides, published as a static site." "MkDocs Material, Netlify" {
                properties {
                    "archmem.paths" "docs/**, netlify.toml"
                }
            }

            tests = container "Test suites" "Unit, integration, multitenancy and browser tests with their fixtures and saved sample pages." "pytest, Playwright" {
                properties {
                    "archmem.paths" "tests/**"
                }
            }

            database = container "Relational database" "Holds groups, households, users, dishes, plans and lists; SQLite by default or PostgreSQL." "SQLite, PostgreSQL" {
                tags "Database"
            }
        }

        websites = softwareSystem "Recipe websites" "Food blogs and cooking sites whose pages carry schema.org or Open Graph data." {
            tags "External"
        }
        llm = softwareSystem "Language model API" "OpenAI or any server speaking the same chat-completions protocol." {
            tags "External"
        }
        idp = softwareSystem "Identity provider" "An OpenID Connect provider or an LDAP directory that vouches for users." {
            tags "External"
        }
        mailserver = softwareSystem "Mail server" "The SMTP relay that delivers invitations and reset links." {
            tags "External"
        }
        notify = softwareSystem "Notification targets" "Push and chat services reached through Apprise, and HTTP endpoints that receive hooks." {
            tags "External"
        }

        cook -> mealie.frontend "Plans meals and shops with" "HTTPS"
        admin -> mealie.docker "Deploys with"
        admin -> mealie.core "Configures through environment variables"
        mealie.frontend -> mealie.api "Calls" "HTTPS, JSON"
        mealie.frontend.client -> mealie.api "Wraps the endpoints of" "HTTPS, JSON"
        mealie.frontend.recipeui -> mealie.frontend.client "Loads and saves dishes with"
        mealie.frontend.shopping -> mealie.frontend.client "Syncs list items with"
        mealie.api -> mealie.services "Delegates work to"
        mealie.api -> mealie.schema "Validates requests and shapes responses with"
        mealie.api -> mealie.data "Reads and writes through"
        mealie.api.recipes -> mealie.services.scraper "Imports web pages with"
        mealie.api.recipes -> mealie.services.parser "Parses ingredient lines with"
        mealie.api.recipes -> mealie.services.openai "Reads photos with"
        mealie.api.auth -> idp "Verifies users against" "OIDC, LDAP"
        mealie.api.auth -> mealie.core "Reads secrets and lockout limits from"
        mealie.api.explore -> mealie.data "Reads public dishes through"
        mealie.services.scraper -> websites "Fetches pages from" "HTTPS"
        mealie.services.scraper -> mealie.services.openai "Falls back to"
        mealie.services.parser -> mealie.services.openai "Optionally parses with"
        mealie.services.parser -> mealie.data "Matches foods and units in"
        mealie.services.openai -> llm "Sends prompts to" "HTTPS"
        mealie.services.events -> notify "Delivers events to" "HTTPS"
        mealie.services.events -> mailserver "Sends mail through" "SMTP"
        mealie.services.scheduler -> mealie.services.events "Posts scheduled hooks through"
        mealie.services.scheduler -> mealie.data "Cleans up rows in"
        mealie.services.backups -> mealie.data.models "Restores the schema revision of a backup with"
        mealie.services.importers -> mealie.data "Writes imported dishes through"
        mealie.data -> mealie.schema.queries "Applies filters and ordering from"
        mealie.data.models -> mealie.database "Reads and writes" "SQL"
        mealie.core -> mealie.database "Chooses the connection for"
        mealie.docker -> mealie.api "Packages and starts"
        mealie.docker -> mealie.frontend "Bundles the built files of"
        mealie.frontend.i18n -> mealie.frontend "Supplies text to"
    }

    views {
        systemContext mealie {
            include *
            autolayout lr
        }
        container mealie {
            include *
            autolayout lr
        }
    }
}

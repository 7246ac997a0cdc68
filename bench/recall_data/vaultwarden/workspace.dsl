/*
 * Vaultwarden (dani-garcia/vaultwarden at 46d7110), modelled by us for archmem's recall
 * benchmark: a self-hosted server that speaks the Bitwarden client API, written in Rust on
 * Rocket and Diesel. The repository ships no C4 model; this one is our own reading of it:
 * one container for the Rocket binary with a component per feature area, one for the data
 * layer and its migrations, the container images, the end-to-end test rig, and two
 * containers without code (the prebuilt web vault and the database). Shared root files
 * (CI workflows, manifests, toolchain, root docs, licence) are owned by the system.
 */
workspace "Vaultwarden" "An unofficial Bitwarden-compatible password manager server written in Rust." {

    !identifiers hierarchical

    model {
        user = person "Vault user" "Keeps passwords, notes and files in the official Bitwarden apps and browser extensions pointed at a self-hosted server."
        operator = person "Instance admin" "Runs the server in a container, sets environment variables and uses the admin page to manage users and settings."

        vaultwarden = softwareSystem "Vaultwarden" "Stores encrypted vaults for users and organisations and answers the same HTTP API as the official Bitwarden server." {
            properties {
                "archmem.paths" ".github/**, *.md, LICENSE.txt, Cargo.toml, Cargo.lock, rust-toolchain.toml, rustfmt.toml, .editorconfig, .gitattributes, .gitignore, .pre-commit-config.yaml, .typos.toml, resources/**"
            }

            server = container "API server" "The single Rust binary: starts up, checks the data folder, runs the scheduled clean-up jobs and mounts every HTTP route on Rocket." "Rust, Rocket, Tokio" {
                properties {
                    "archmem.paths" "src/main.rs, src/api/mod.rs, src/api/core/mod.rs, src/error.rs, src/util.rs, src/crypto.rs, build.rs, macros/**"
                }
                config = component "Configuration" "Reads settings from environment variables, an env file, secret files and the config.json saved by the admin page, and checks them at startup." "Rust macros, dotenvy" {
                    properties {
                        "archmem.paths" "src/config.rs, .env.template"
                    }
                }
                identity = component "Login and tokens" "The token endpoint that signs people and apps in with a password, an API key or a refresh token, and the signed tokens and request guards that protect every other route." "jsonwebtoken, governor" {
                    properties {
                        "archmem.paths" "src/api/identity.rs, src/auth.rs, src/ratelimit.rs"
                    }
                }
                sso = component "Single sign-on" "Lets people log in through an external OpenID Connect provider instead of, or in addition to, the master password." "openidconnect" {
                    properties {
                        "archmem.paths" "src/sso.rs, src/sso_client.rs"
                    }
                }
                twofactor = component "Two-step login" "The second factors a user can turn on: authenticator codes, email codes, Duo, YubiKey OTP and security keys, plus the remember-this-device token." "webauthn-rs, totp-lite, yubico" {
                    properties {
                        "archmem.paths" "src/api/core/two_factor/**"
                    }
                }
                accounts = component "Accounts and devices" "Registration, profile, master password and encryption key changes, password hints, account deletion and the login-with-device requests." "Rocket" {
                    properties {
                        "archmem.paths" "src/api/core/accounts.rs"
                    }
                }
                vault = component "Vault items" "Creating, editing, sharing, archiving and trashing the encrypted items and folders, their file attachments, and the big sync response the apps download." "Rocket" {
                    properties {
                        "archmem.paths" "src/api/core/ciphers.rs, src/api/core/folders.rs, src/static/global_domains.json, tools/global_domains.py"
                    }
                }
                orgs = component "Organizations" "Shared vaults for teams: members and invitations, collections, groups, policies, the event log and the directory-sync public API." "Rocket" {
                    properties {
                        "archmem.paths" "src/api/core/organizations.rs, src/api/core/public.rs, src/api/core/events.rs"
                    }
                }
                sends = component "Sends" "Short-lived text or file shares that anyone with the link can open, optionally with a password and a limited number of views." "Rocket" {
                    properties {
                        "archmem.paths" "src/api/core/sends.rs, src/auth/send.rs"
                    }
                }
                emergency = component "Emergency access" "Lets a trusted contact ask for access to someone's vault and get it automatically after a waiting period unless it is refused." "Rocket" {
                    properties {
                        "archmem.paths" "src/api/core/emergency_access.rs"
                    }
                }
                notify = component "Live updates and push" "Tells open apps that something changed, over a websocket hub for desktop and browser clients and through the Bitwarden push relay for phones." "rocket_ws, MessagePack" {
                    properties {
                        "archmem.paths" "src/api/notifications.rs, src/api/push.rs"
                    }
                }
                icons = component "Website icons" "Finds and downloads the favicon of each saved website, caches it, and guards every outgoing HTTP request against private addresses." "reqwest, hickory-resolver, html5gum" {
                    properties {
                        "archmem.paths" "src/api/icons.rs, src/http_client.rs"
                    }
                }
                admin = component "Admin page" "The token-protected page where the operator invites and disables users, looks at organisations, edits settings and reads diagnostics." "Handlebars, Bootstrap" {
                    properties {
                        "archmem.paths" "src/api/admin.rs, src/static/templates/admin/**, src/static/scripts/admin*.js, src/static/scripts/admin.css, src/static/scripts/bootstrap*, src/static/scripts/datatables*, src/static/scripts/jquery*, src/static/scripts/jdenticon*"
                    }
                }
                web = component "Web vault hosting" "Serves the prebuilt web vault files, the generated stylesheet that hides unsupported features, the built-in images and a few well-known files." "Rocket, grass" {
                    properties {
                        "archmem.paths" "src/api/web.rs, src/static/templates/scss/**, src/static/templates/404.hbs, src/static/images/**, src/static/scripts/404.css"
                    }
                }
                mail = component "Outgoing mail" "Renders the email templates and sends invitations, verification codes and warnings over SMTP or a local sendmail binary." "lettre, Handlebars" {
                    properties {
                        "archmem.paths" "src/mail.rs, src/static/templates/email/**"
                    }
                }
                storage = component "File storage" "Hides whether attachments, send files, icons, the signing key and config.json live on local disk or in an S3 bucket." "OpenDAL" {
                    properties {
                        "archmem.paths" "src/storage.rs"
                    }
                }
            }

            data = container "Data layer" "The connection pool over SQLite, MySQL or PostgreSQL, the table models with their queries, and the embedded schema migrations." "Diesel 2, r2d2" {
                properties {
                    "archmem.paths" "src/db/**, migrations/**, diesel.toml"
                }
                models = component "Table models" "One Rust type per table with the queries for it and the JSON the clients expect, written once for all three databases." "Diesel" {
                    properties {
                        "archmem.paths" "src/db/models/**, src/db/schema.rs, src/db/query_logger.rs"
                    }
                }
                migrations = component "Schema migrations" "Three parallel folders of SQL scripts, one per database engine, compiled into the binary and applied on startup." "diesel_migrations" {
                    properties {
                        "archmem.paths" "migrations/**, diesel.toml"
                    }
                }
            }

            images = container "Container images" "The Debian and Alpine images for four CPU architectures, rendered from one template and built with buildx bake." "Docker, Jinja2, buildx" {
                properties {
                    "archmem.paths" "docker/**, Dockerfile, .dockerignore, .hadolint.yaml"
                }
            }

            e2e = container "End-to-end tests" "Browser tests that drive a real web vault against the server on every database, with a mail catcher and a Keycloak for sign-on." "Playwright, Docker Compose" {
                properties {
                    "archmem.paths" "playwright/**"
                }
            }

            webvault = container "Web vault" "The Bitwarden web app, built from the upstream clients with a few patches and shipped inside the image." "Angular" {
                tags "Web"
            }

            database = container "Database" "Holds users, devices, encrypted items, organisations and all other state; a single SQLite file by default." "SQLite, MySQL, MariaDB, PostgreSQL" {
                tags "Database"
            }
        }

        idp = softwareSystem "Identity provider" "An OpenID Connect provider such as Keycloak, Authentik or Azure AD." {
            tags "External"
        }
        smtp = softwareSystem "Mail server" "The SMTP relay or local sendmail that delivers the server's emails." {
            tags "External"
        }
        pushrelay = softwareSystem "Bitwarden push relay" "Bitwarden's hosted service that forwards notifications to the mobile apps." {
            tags "External"
        }
        websites = softwareSystem "Websites" "The sites whose logins people store; their pages and favicons are fetched for icons." {
            tags "External"
        }
        duo = softwareSystem "Duo and YubiCloud" "Hosted second-factor services that confirm Duo pushes and YubiKey one-time passwords." {
            tags "External"
        }
        s3 = softwareSystem "Object storage" "An S3-compatible bucket that can replace the local data folder." {
            tags "External"
        }
        hibp = softwareSystem "Have I Been Pwned" "The breach lookup service queried when an API key is configured." {
            tags "External"
        }

        user -> vaultwarden.webvault "Manages the vault in" "HTTPS"
        user -> vaultwarden.server "Syncs with through the Bitwarden apps" "HTTPS, JSON"
        operator -> vaultwarden.images "Deploys with"
        operator -> vaultwarden.server.admin "Manages users and settings in" "HTTPS"
        vaultwarden.webvault -> vaultwarden.server "Calls the API of" "HTTPS, JSON"
        vaultwarden.server.web -> vaultwarden.webvault "Serves the files of"
        vaultwarden.server -> vaultwarden.data "Reads and writes through"
        vaultwarden.server.identity -> vaultwarden.server.config "Reads rate limits and the client IP header settings from"
        vaultwarden.server -> hibp "Looks up breaches in" "HTTPS"
        vaultwarden.server.identity -> vaultwarden.server.twofactor "Asks for a second factor through"
        vaultwarden.server.identity -> vaultwarden.server.sso "Hands sign-on logins to"
        vaultwarden.server.identity -> vaultwarden.server.sends "Issues access tokens for"
        vaultwarden.server.identity -> vaultwarden.data.models "Loads users and devices from"
        vaultwarden.server.sso -> idp "Exchanges codes and tokens with" "OpenID Connect"
        vaultwarden.server.sso -> vaultwarden.server.icons "Makes its requests with the guarded client of"
        vaultwarden.server.twofactor -> vaultwarden.server.mail "Sends email codes through"
        vaultwarden.server.twofactor -> duo "Verifies Duo and YubiKey logins with" "HTTPS"
        vaultwarden.server.accounts -> vaultwarden.server.mail "Sends verification and hint mails through"
        vaultwarden.server.accounts -> vaultwarden.server.notify "Logs devices out through"
        vaultwarden.server.orgs -> vaultwarden.server.mail "Sends invitations through"
        vaultwarden.server.emergency -> vaultwarden.server.mail "Sends requests and reminders through"
        vaultwarden.server.vault -> vaultwarden.server.notify "Announces changed items through"
        vaultwarden.server.vault -> vaultwarden.server.storage "Keeps attachments in"
        vaultwarden.server.sends -> vaultwarden.server.storage "Keeps send files in"
        vaultwarden.server.sends -> vaultwarden.server.notify "Announces changed sends through"
        vaultwarden.server.notify -> pushrelay "Forwards phone notifications to" "HTTPS"
        vaultwarden.server.icons -> websites "Downloads favicons from" "HTTPS"
        vaultwarden.server.icons -> vaultwarden.server.storage "Caches icons in"
        vaultwarden.server.mail -> smtp "Delivers mail through" "SMTP"
        vaultwarden.server.admin -> vaultwarden.server.config "Edits and saves settings with"
        vaultwarden.server.admin -> vaultwarden.data "Backs up the SQLite file through"
        vaultwarden.server.config -> vaultwarden.server.storage "Reads config.json through"
        vaultwarden.server.storage -> s3 "Can keep files in" "S3"
        vaultwarden.data.models -> vaultwarden.database "Queries" "SQL"
        vaultwarden.data.migrations -> vaultwarden.database "Upgrades the schema of" "SQL"
        vaultwarden.images -> vaultwarden.server "Builds and starts"
        vaultwarden.images -> vaultwarden.webvault "Bundles a pinned release of"
        vaultwarden.e2e -> vaultwarden.server "Drives browser tests against" "HTTPS"
        vaultwarden.e2e -> idp "Runs a Keycloak as"
    }

    views {
        systemContext vaultwarden {
            include *
            autolayout lr
        }
        container vaultwarden {
            include *
            autolayout lr
        }
    }
}

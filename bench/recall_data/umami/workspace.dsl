/*
 * Umami (umami-software/umami at c0ea3ae), modelled by us for archmem's final held-out
 * recall set: a privacy-focused web analytics application in TypeScript on Next.js, a
 * domain unlike the shop sets and the feed reader. The repository ships no C4 model; this
 * one is our own reading of its folders: the browser scripts, the collection endpoints,
 * the dashboard and its screens, the shared components, the management API, the analytics
 * queries, the data access layer with its schemas, deployment, tests and sample data, and
 * the shared files (CI, contributor docs, root package files) owned by the system itself.
 */
workspace "Umami" "A self-hostable, cookie-free web analytics application on Next.js with PostgreSQL or ClickHouse." {

    !identifiers hierarchical

    model {
        analyst = person "Analyst" "Owns or belongs to a team that owns websites and reads their traffic, reports and boards."
        visitor = person "Website visitor" "Browses a site that embeds the tracking script, usually without knowing it."
        operator = person "Operator" "Self-hosts an instance: builds or pulls the image, sets environment variables, upgrades the database."

        umami = softwareSystem "Umami" "Collects page views and events from tracked sites and turns them into dashboards, reports and shareable pages." {
            properties {
                "archmem.paths" ".github/**, *.md, LICENSE, package.json, pnpm-lock.yaml, pnpm-workspace.yaml, biome.json, tsconfig.json, .gitignore, postcss.config.js, src/declaration.d.ts, src/types/**"
            }

            tracker = container "Tracking script" "The small script a site embeds: reports page views, clicks on tagged elements, identities and web vitals to the collection endpoint." "JavaScript, Rollup" {
                tags "Browser"
                properties {
                    "archmem.paths" "src/tracker/**, rollup.tracker.config.js, scripts/update-tracker.js"
                }
            }

            recorder = container "Replay recorder" "An optional second script that captures DOM mutations with rrweb, masks what visitors type and ships the chunks for playback." "JavaScript, rrweb, Rollup" {
                tags "Browser"
                properties {
                    "archmem.paths" "src/recorder/**, rollup.recorder.config.js"
                }
            }

            collect = container "Collection endpoints" "Unauthenticated routes that accept hits, derive an anonymous visitor and visit from them, drop bots and blocked addresses, and hand the rows to storage." "Next.js route handlers" {
                properties {
                    "archmem.paths" "src/app/api/send/**, src/app/api/batch/**, src/app/api/record/**, src/app/(collect)/**, src/lib/detect.ts, src/lib/detect.test.ts, src/lib/ip.ts, src/lib/crypto.ts, scripts/build-geo.js"
                }
                detection = component "Visitor detection" "Works out the client address, country, region, city, browser, operating system and device class of a request." "ua-parser-js, detect-browser, MaxMind" {
                    properties {
                        "archmem.paths" "src/lib/detect.ts, src/lib/detect.test.ts, src/lib/ip.ts, scripts/build-geo.js"
                    }
                }
                shortlinks = component "Short links and pixels" "Public slug routes that redirect through a counted short link or answer with a counted one-pixel image." "Next.js route handlers" {
                    properties {
                        "archmem.paths" "src/app/(collect)/**"
                    }
                }
            }

            webapp = container "Dashboard web app" "The signed-in interface: website overviews, realtime, sessions, settings, teams and administration, rendered with React." "Next.js App Router, React, Zustand" {
                tags "Web"
                properties {
                    "archmem.paths" "src/app/(main)/**, src/app/login/**, src/app/logout/**, src/app/sso/**, src/app/share/**, src/app/layout.tsx, src/app/page.tsx, src/app/not-found.tsx, src/app/Providers.tsx, src/app/global.css, src/store/**, src/i18n/**, public/intl/**, src/lib/lang.ts, scripts/check-missing-messages.js, scripts/download-country-names.js, scripts/download-language-names.js"
                }
                websites = component "Website screens" "Per-site pages: overview with metrics bar and chart, events, sessions with their activity, realtime, comparison, segments, cohorts, replays and site settings." "React" {
                    properties {
                        "archmem.paths" "src/app/(main)/websites/**, src/app/(main)/console/**"
                    }
                }
                reportscreens = component "Report screens" "Forms and result views for funnels, journeys, retention, goals, attribution, breakdown, revenue, UTM and performance." "React" {
                    properties {
                        "archmem.paths" "src/app/(main)/websites/*/(reports)/**"
                    }
                }
                boards = component "Boards and personal dashboard" "A grid editor where people arrange widgets from several sites, links and pixels on one page." "React, hello-pangea/dnd" {
                    properties {
                        "archmem.paths" "src/app/(main)/boards/**, src/app/(main)/dashboard/**, src/lib/boards.ts, src/lib/boards.test.ts, src/lib/boardComponentCompatibility.ts"
                    }
                }
                share = component "Public share pages" "Read-only views reached through a secret slug, optionally branded, that anyone with the address can open without an account." "React" {
                    properties {
                        "archmem.paths" "src/app/share/**, src/components/share/**"
                    }
                }
                i18n = component "Translations" "Interface strings for some fifty locales, plus localized country and language names, loaded on demand in the browser." "next-intl, JSON" {
                    properties {
                        "archmem.paths" "public/intl/**, src/i18n/**, src/lib/lang.ts, scripts/check-missing-messages.js, scripts/download-country-names.js, scripts/download-language-names.js"
                    }
                }
            }

            ui = container "Shared UI kit" "Reusable React pieces for every screen: inputs, filters, tables, metric cards, charts, icons, and the hooks that fetch data; also published as a component package." "React, react-zen, Chart.js, tsup" {
                properties {
                    "archmem.paths" "src/components/**, src/assets/**, src/index.ts, tsup.config.js, package.components.json, scripts/bump-components.js, src/lib/charts.ts, src/lib/charts.test.ts, src/lib/colors.ts, src/lib/format.ts, src/lib/format.test.ts, src/lib/client.ts, src/lib/fetch.ts, src/lib/react.ts, src/lib/storage.ts"
                }
                hooks = component "Data hooks" "TanStack Query wrappers around the JSON API plus URL-state hooks for date range, filters and navigation." "TanStack Query" {
                    properties {
                        "archmem.paths" "src/components/hooks/**"
                    }
                }
            }

            api = container "Management API" "Authenticated JSON routes for accounts, teams, websites, links, pixels, boards, shares, reports and every statistic the screens show." "Next.js route handlers, Zod" {
                properties {
                    "archmem.paths" "src/app/api/admin/**, src/app/api/auth/**, src/app/api/boards/**, src/app/api/config/**, src/app/api/dashboard/**, src/app/api/heartbeat/**, src/app/api/links/**, src/app/api/me/**, src/app/api/pixels/**, src/app/api/realtime/**, src/app/api/reports/**, src/app/api/scripts/**, src/app/api/share/**, src/app/api/teams/**, src/app/api/users/**, src/app/api/websites/**, src/lib/request.ts, src/lib/response.ts, src/lib/schema.ts, src/lib/auth.ts, src/lib/jwt.ts, src/lib/password.ts, src/lib/entity.ts, src/permissions/**"
                }
                access = component "Sign-in and permissions" "Password and single sign-on login, bearer tokens, role checks and the rules deciding who may see or change a site, team, board or report." "jsonwebtoken, bcryptjs" {
                    properties {
                        "archmem.paths" "src/app/api/auth/**, src/lib/auth.ts, src/lib/jwt.ts, src/lib/password.ts, src/lib/entity.ts, src/permissions/**"
                    }
                }
            }

            queries = container "Analytics queries" "Hand-written SQL for every metric, each in a PostgreSQL and a ClickHouse flavour, plus the shared filter, date and parameter helpers." "TypeScript, SQL" {
                properties {
                    "archmem.paths" "src/queries/sql/**, src/lib/sql.ts, src/lib/filters.ts, src/lib/params.ts, src/lib/date.ts"
                }
                reportqueries = component "Report queries" "The heavy aggregations behind funnels, journeys, retention, goals, attribution, revenue and web vitals." "SQL" {
                    properties {
                        "archmem.paths" "src/queries/sql/reports/**"
                    }
                }
                writes = component "Write path" "Inserts visitors, hits, custom properties, revenue and replay chunks, directly or through the message stream." "SQL, kafkajs" {
                    properties {
                        "archmem.paths" "src/queries/sql/events/saveEvent.ts, src/queries/sql/events/saveEventData.ts, src/queries/sql/events/saveRevenue.ts, src/queries/sql/sessions/createSession.ts, src/queries/sql/sessions/saveSessionData.ts, src/queries/sql/replays/saveRecording.ts"
                    }
                }
            }

            data = container "Data access layer" "Connections to the relational store, the columnar store, the cache and the message stream, the ORM queries for accounts and settings, and the schemas." "Prisma, @clickhouse/client, node-redis, kafkajs" {
                properties {
                    "archmem.paths" "src/lib/db.ts, src/lib/prisma.ts, src/lib/clickhouse.ts, src/lib/kafka.ts, src/lib/redis.ts, src/lib/load.ts, src/queries/prisma/**, prisma/**, db/**, prisma.config.ts, tsconfig.prisma.json, scripts/build-prisma-client.js, scripts/check-db.js"
                }
                schema = component "Schemas and migrations" "The ORM schema with its numbered migrations, the columnar DDL with its own migration files, and the start-up check that applies them." "Prisma Migrate, SQL" {
                    properties {
                        "archmem.paths" "prisma/**, db/**, prisma.config.ts, scripts/check-db.js"
                    }
                }
            }

            deploy = container "Build and deployment" "The container image, compose files, hosting manifests, the framework configuration with its headers and rewrites, and the edge hook used inside the image." "Docker, Podman, Next.js config" {
                properties {
                    "archmem.paths" "Dockerfile, .dockerignore, docker-compose.yml, docker/**, podman/**, app.json, netlify.toml, next.config.ts, scripts/postbuild.js, scripts/check-env.js, scripts/start-env.js, scripts/telemetry.js, src/lib/match-configured-path.ts, src/lib/match-configured-path.test.ts"
                }
            }

            tests = container "Test suites" "Unit and component tests run in a simulated DOM, and end-to-end browser scenarios against a running instance." "Vitest, Testing Library, Cypress" {
                properties {
                    "archmem.paths" "cypress/**, cypress.config.ts, vitest.config.ts, src/test/**"
                }
            }

            seed = container "Sample data generator" "A script that fills a development database with believable fake traffic for demo sites." "tsx" {
                properties {
                    "archmem.paths" "scripts/seed/**, scripts/seed-data.ts"
                }
            }

            postgres = container "PostgreSQL" "The relational database: accounts and settings always, and all traffic too when no columnar store is configured." "PostgreSQL" {
                tags "Database"
            }
            clickhouse = container "ClickHouse" "The optional columnar store for traffic at scale, with hourly rollups kept by materialized views." "ClickHouse" {
                tags "Database"
            }
            redis = container "Redis" "Optional cache for sites, links, pixels and login keys." "Redis" {
                tags "Database"
            }
            kafka = container "Kafka" "Optional message stream that buffers inserts on their way to the columnar store." "Kafka" {
                tags "Queue"
            }
        }

        sites = softwareSystem "Tracked websites" "Third-party sites and apps that embed the scripts or call the collection endpoint directly." {
            tags "External"
        }
        geodb = softwareSystem "GeoLite2 database" "The downloadable IP-to-city database used when no proxy supplies location headers." {
            tags "External"
        }
        cloud = softwareSystem "Umami Cloud services" "The hosted offering's billing and branding data, reached only in cloud mode." {
            tags "External"
        }

        visitor -> sites "Browses"
        sites -> umami.tracker "Embeds"
        sites -> umami.recorder "Embeds"
        sites -> umami.collect "Sends hits to" "HTTPS, JSON"
        visitor -> umami.collect.shortlinks "Follows links and loads images from" "HTTPS"
        analyst -> umami.webapp "Reads statistics and manages sites with" "HTTPS"
        analyst -> umami.webapp.share "Shares read-only views through"
        operator -> umami.deploy "Builds and runs the instance with"
        operator -> umami.data.schema "Upgrades the database with"
        umami.tracker -> umami.collect "Posts page views, events and vitals to" "HTTPS, JSON"
        umami.recorder -> umami.collect "Posts replay chunks to" "HTTPS, JSON"
        umami.recorder -> umami.tracker "Reuses the visit token of"
        umami.collect -> umami.collect.detection "Identifies the client with"
        umami.collect.shortlinks -> umami.collect "Counts each hit through"
        umami.collect -> umami.queries.writes "Stores hits with"
        umami.collect -> umami.data "Looks sites up, cached, in"
        umami.collect.detection -> geodb "Looks addresses up in"
        umami.webapp -> umami.ui "Builds screens from"
        umami.webapp.websites -> umami.ui.hooks "Fetches statistics with"
        umami.webapp.reportscreens -> umami.ui.hooks "Runs reports with"
        umami.webapp.boards -> umami.ui "Renders widgets from"
        umami.webapp.share -> umami.ui.hooks "Fetches shared statistics with"
        umami.ui.hooks -> umami.api "Calls" "HTTPS, JSON"
        umami.api -> umami.api.access "Authenticates and authorizes with"
        umami.api -> umami.queries "Computes statistics with"
        umami.api -> umami.queries.reportqueries "Runs reports with"
        umami.api -> umami.data "Reads and writes accounts and settings in"
        umami.api.access -> umami.data "Loads users, teams and keys from"
        umami.api.access -> cloud "Reads subscription and branding flags from"
        umami.queries -> umami.data "Runs SQL through"
        umami.queries.writes -> umami.data "Inserts through"
        umami.data -> umami.postgres "Reads and writes" "SQL"
        umami.data -> umami.clickhouse "Reads and writes" "HTTP"
        umami.data -> umami.redis "Caches in" "RESP"
        umami.data -> umami.kafka "Publishes inserts to"
        umami.kafka -> umami.clickhouse "Feeds"
        umami.data.schema -> umami.postgres "Migrates" "SQL"
        umami.data.schema -> umami.clickhouse "Defines tables and views of" "SQL"
        umami.deploy -> umami.data.schema "Applies migrations at start-up with"
        umami.deploy -> umami.tracker "Rewrites the script name and endpoint of"
        umami.tests -> umami.api "Exercises"
        umami.tests -> umami.ui "Tests"
        umami.seed -> umami.postgres "Fills with fake traffic" "SQL"
    }

    views {
        systemContext umami {
            include *
            autolayout lr
        }
        container umami {
            include *
            autolayout lr
        }
    }
}

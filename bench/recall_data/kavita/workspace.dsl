/*
 * Kavita (Kareadita/Kavita at 1d5ba89), modelled by us for archmem's recall benchmark:
 * a self-hosted reading server for manga, comics and books. The repository ships no C4
 * model; this is our own reading of it: the ASP.NET Core API with its services and its
 * EF Core data layer, the shared Kavita.Common library, the Angular web app, the build
 * scripts and image, the test projects, and the external services the server calls.
 * Shared root files (CI workflows, root docs, solution, SDK pin, generated API spec)
 * belong to the system itself.
 */
workspace "Kavita" "A self-hosted reading server for manga, comics and books, written in C# (ASP.NET Core, EF Core) and Angular." {

    !identifiers hierarchical

    model {
        reader = person "Reader" "Browses their libraries, reads in the browser or a third-party app, and keeps progress, ratings and lists."
        admin = person "Server admin" "Installs the server, points libraries at folders on disk, manages users and settings, and takes backups."

        kavita = softwareSystem "Kavita" "Scans folders of archives, books and images into series, serves them to readers in the browser and over OPDS, and tracks each user's progress." {
            properties {
                "archmem.paths" ".github/**, *.md, LICENSE, .gitignore, .gitattributes, .editorconfig, .browserslistrc, .sonarcloud.properties, Kavita.sln, Kavita.sln.DotSettings, global.json, openapi.json, FUNDING.yml, INSTALL.txt, Logo/**, favicon.ico, TestData"
            }

            api = container "Web API" "The ASP.NET Core host: startup and middleware, the controllers behind every screen, the request and response shapes, and the app settings file." "C#, ASP.NET Core 8" {
                properties {
                    "archmem.paths" "API/Program.cs, API/Startup.cs, API/Controllers/**, API/Middleware/**, API/Constants/**, API/Errors/**, API/Properties/**, API/config/appsettings*.json, API/API.csproj, API/API.csproj.DotSettings, API/Extensions/**, API/DTOs/**, API/Logging/**"
                }
                auth = component "Accounts and sign-in" "Logins, invitations, roles and the signed tokens the browser keeps, plus the long-lived key that reading apps use." "ASP.NET Identity, JWT" {
                    properties {
                        "archmem.paths" "API/Controllers/AccountController.cs, API/Controllers/UsersController.cs, API/Services/TokenService.cs, API/Services/AccountService.cs, API/Middleware/**, API/Extensions/IdentityServiceExtensions.cs, API/Extensions/ClaimsPrincipalExtensions.cs, API/Constants/PolicyConstants.cs, API/DTOs/Account/**, API/Entities/AppRole.cs, API/Entities/AppUserRole.cs"
                    }
                }
                opds = component "OPDS and reading-app endpoints" "Catalogue feeds and progress calls for e-reader and phone apps that sign in with an API key in the address instead of a login." "OPDS, Atom XML" {
                    properties {
                        "archmem.paths" "API/Controllers/OPDSController.cs, API/DTOs/OPDS/**, API/Controllers/TachiyomiController.cs, API/Services/TachiyomiService.cs, API/DTOs/TachiyomiChapterDto.cs"
                    }
                }
                realtime = component "Live event hub" "Pushes scan progress, new series, cover changes and errors to open browser tabs as they happen." "SignalR" {
                    properties {
                        "archmem.paths" "API/SignalR/**, UI/Web/src/app/_services/message-hub.service.ts"
                    }
                }
            }

            services = container "Domain services" "The business logic behind the controllers: scanning folders, opening archives and books, images and covers, email, background jobs and the paid add-on." "C#" {
                properties {
                    "archmem.paths" "API/Services/**, API/Helpers/**, API/Archive/**, API/Comparators/**"
                }
                scanner = component "Library scanner" "Walks library folders, groups the files it finds into series, volumes and chapters, and writes the differences to the database." "C#, Hangfire" {
                    properties {
                        "archmem.paths" "API/Services/Tasks/ScannerService.cs, API/Services/Tasks/Scanner/LibraryWatcher.cs, API/Services/Tasks/Scanner/ParseScannedFiles.cs, API/Services/Tasks/Scanner/ProcessSeries.cs, API/Data/Scanner/**, API/Helpers/PersonHelper.cs, API/Helpers/GenreHelper.cs, API/Helpers/TagHelper.cs, API/Helpers/ParserInfoHelpers.cs, API/Helpers/SeriesHelper.cs, API/Services/MetadataService.cs"
                    }
                }
                parser = component "File name parsers" "Reads series, volume, chapter and special markers out of file and folder names, and the embedded metadata files, per library type." "C#, regular expressions" {
                    properties {
                        "archmem.paths" "API/Services/Tasks/Scanner/Parser/**, API/Services/ReadingItemService.cs, API/Data/Metadata/ComicInfo.cs"
                    }
                }
                reading = component "Reading and files" "Unpacks chapters into a cache folder, serves pages, book sections and images, records reading progress and bookmarks, and builds downloads." "SharpCompress, VersOne.Epub, NetVips" {
                    properties {
                        "archmem.paths" "API/Services/ReaderService.cs, API/Services/BookService.cs, API/Services/CacheService.cs, API/Services/ArchiveService.cs, API/Services/ImageService.cs, API/Services/BookmarkService.cs, API/Services/DownloadService.cs, API/Archive/**, API/Controllers/ReaderController.cs, API/Controllers/BookController.cs, API/Controllers/ImageController.cs, API/Controllers/DownloadController.cs"
                    }
                }
                jobs = component "Background jobs" "Schedules the nightly scan, backups, cleanup, update checks and statistics, on fixed or admin-chosen timetables." "Hangfire, Cronos" {
                    properties {
                        "archmem.paths" "API/Services/TaskScheduler.cs, API/Services/Tasks/BackupService.cs, API/Services/Tasks/CleanupService.cs, API/Services/Tasks/StatsService.cs, API/Services/Tasks/VersionUpdaterService.cs, API/Services/Tasks/Metadata/**, API/Services/HostedServices/**, API/Services/MediaConversionService.cs, API/Helpers/Converters/CronConverter.cs, Kavita.Common/Helpers/CronHelper.cs"
                    }
                }
                email = component "Email" "Sends invitations, password resets, address changes and files to e-readers through the admin's own mail server, from editable templates." "MailKit" {
                    properties {
                        "archmem.paths" "API/Services/EmailService.cs, API/EmailTemplates/**, API/config/templates/**, API/DTOs/Email/**, Kavita.Email/**"
                    }
                }
                plus = component "Kavita+ integration" "The paid add-on: licence checks, sending reading activity to tracking sites, and pulling outside ratings, reviews, recommendations and curated stacks." "Flurl, Hangfire" {
                    properties {
                        "archmem.paths" "API/Services/Plus/**, API/Controllers/LicenseController.cs, API/Controllers/ScrobblingController.cs, API/Entities/Scrobble/**, API/DTOs/Scrobbling/**, API/DTOs/License/**, API/Helpers/RateLimiter.cs"
                    }
                }
                themes = component "Site themes" "Stores colour themes, lets users upload their own or install ones published in a community repository, and keeps installed ones up to date." "CSS, GitHub API" {
                    properties {
                        "archmem.paths" "API/Services/Tasks/SiteThemeService.cs, API/Controllers/ThemeController.cs, API/Entities/SiteTheme.cs, API/Entities/Enums/Theme/**, API/DTOs/Theme/**, UI/Web/src/app/_services/theme.service.ts, UI/Web/src/theme/**"
                    }
                }
                filtering = component "Filters and smart filters" "Turns a list of field, comparison and value rows into a database query, and saves such filters under a name in a compact string form." "LINQ, EF Core" {
                    properties {
                        "archmem.paths" "API/Helpers/SmartFilterHelper.cs, API/Controllers/FilterController.cs, API/Extensions/QueryExtensions/**, API/Extensions/FilterDtoExtensions.cs, API/DTOs/Filtering/**, API/Helpers/Converters/FilterFieldValueConverter.cs, UI/Web/src/app/metadata-filter/**, UI/Web/src/app/_services/filter.service.ts"
                    }
                }
                lists = component "Collections and reading lists" "Groups of series a user curates and ordered lists of chapters across series, including importing lists from comic list files." "C#" {
                    properties {
                        "archmem.paths" "API/Services/CollectionTagService.cs, API/Services/ReadingListService.cs, API/Controllers/CollectionController.cs, API/Controllers/ReadingListController.cs, API/Controllers/CBLController.cs, API/DTOs/Collection/**, API/DTOs/CollectionTags/**, API/DTOs/ReadingLists/**, API/Entities/AppUserCollection.cs, API/Entities/CollectionTag.cs, API/Entities/ReadingList.cs, API/Entities/ReadingListItem.cs"
                    }
                }
            }

            data = container "Data access" "The EF Core context, the entity classes, one repository per aggregate behind a unit of work, and the seed data written on first start." "EF Core 8" {
                properties {
                    "archmem.paths" "API/Data/**, API/Entities/**"
                }
                migrations = component "Schema and data migrations" "Generated schema changes plus hand-written one-off data fixes that run at startup and remember that they ran." "EF Core migrations" {
                    properties {
                        "archmem.paths" "API/Data/Migrations/**, API/Data/ManualMigrations/**, API/Entities/ManualMigrationHistory.cs, API/Data/Seed.cs"
                    }
                }
            }

            common = container "Shared library" "Small helpers used by the server and its tools: reading the app settings file, build and OS information, glob matching, cron validation and common exceptions." "C#" {
                properties {
                    "archmem.paths" "Kavita.Common/**"
                }
            }

            web = container "Web app" "The browser interface, compiled ahead of time into static files that the API serves from its wwwroot folder." "Angular 17, TypeScript, Bootstrap" {
                tags "Web"
                properties {
                    "archmem.paths" "UI/Web/**"
                }
                mangareader = component "Image reader" "Page-by-page and long-strip reading of comics and manga, with several page layouts and prefetching of nearby pages." "Angular" {
                    properties {
                        "archmem.paths" "UI/Web/src/app/manga-reader/**, UI/Web/src/app/reader-shared/**"
                    }
                }
                bookreader = component "Book and PDF reader" "Shows book sections with the reader's fonts and colours, tables of contents and annotations, and PDFs in an embedded viewer." "Angular, ngx-extended-pdf-viewer" {
                    properties {
                        "archmem.paths" "UI/Web/src/app/book-reader/**, UI/Web/src/app/pdf-reader/**"
                    }
                }
                client = component "Web services layer" "Typed wrappers around every backend call, the request interceptors that attach the token and show errors, route guards and the shared models." "Angular HttpClient, RxJS" {
                    properties {
                        "archmem.paths" "UI/Web/src/app/_services/**, UI/Web/src/app/_interceptors/**, UI/Web/src/app/_guards/**, UI/Web/src/app/_models/**, UI/Web/src/environments/**"
                    }
                }
                adminui = component "Admin screens" "Server settings, libraries, users, scheduled tasks, mail setup, media problems and the licence page." "Angular" {
                    properties {
                        "archmem.paths" "UI/Web/src/app/admin/**"
                    }
                }
                i18n = component "Translations" "Interface and server message files in dozens of languages, filled in by volunteers on a hosted translation site." "Transloco, Weblate" {
                    properties {
                        "archmem.paths" "UI/Web/src/assets/langs/**, API/I18N/**, API/Services/LocalizationService.cs, API/Controllers/LocaleController.cs, UI/Web/sync-locales.js, UI/Web/hash-localization.js, UI/Web/hash-localization-prime.js, UI/Web/minify-json.js, UI/Web/src/httpLoader.ts"
                    }
                }
            }

            packaging = container "Build and image" "Scripts that compile the server for each platform, bundle the web app into it, and the multi-architecture container image with its start script." "bash, Docker" {
                properties {
                    "archmem.paths" "Dockerfile, entrypoint.sh, copy_runtime.sh, docker-build.sh, build.sh, monorepo-build.sh"
                }
            }

            tests = container "Tests and benchmarks" "Unit tests for parsing, scanning and services with sample files, and micro-benchmarks for hot paths." "xUnit, BenchmarkDotNet" {
                properties {
                    "archmem.paths" "API.Tests/**, API.Benchmark/**"
                }
            }

            database = container "Database file" "One SQLite file in the config folder holding libraries, series, users, progress and settings." "SQLite" {
                tags "Database"
            }
        }

        folders = softwareSystem "Media folders" "The disks or network shares holding the admin's archives, books and image folders." {
            tags "External"
        }
        kavitaplus = softwareSystem "Kavita+ service" "The paid online service that validates licences and relays metadata and tracker updates." {
            tags "External"
        }
        trackers = softwareSystem "Tracking sites" "AniList and MyAnimeList, where readers keep their reading history." {
            tags "External"
        }
        github = softwareSystem "GitHub" "Hosts the release feed used for update notices and the community themes repository." {
            tags "External"
        }
        website = softwareSystem "Kavita website services" "The project's own endpoints for anonymous usage statistics and the favicon and publisher logo catalogues." {
            tags "External"
        }
        mailserver = softwareSystem "Mail server" "The admin's SMTP server that delivers invitations, resets and files sent to devices." {
            tags "External"
        }
        apps = softwareSystem "Reading apps" "OPDS readers, e-reader apps and phone apps such as Tachiyomi-style clients and the Komf metadata tool." {
            tags "External"
        }
        weblate = softwareSystem "Weblate" "The hosted translation site where volunteers translate the interface and server messages." {
            tags "External"
        }

        reader -> kavita.web "Reads and manages lists with" "HTTPS"
        reader -> apps "Reads on a device with"
        admin -> kavita.packaging "Deploys with"
        admin -> kavita.web.adminui "Configures the server with"
        apps -> kavita.api.opds "Browses and syncs progress through" "OPDS, HTTPS"
        kavita.web -> kavita.api "Calls" "HTTPS, JSON"
        kavita.web.client -> kavita.api "Wraps the endpoints of" "HTTPS, JSON"
        kavita.web.client -> kavita.api.realtime "Listens for events from" "WebSocket"
        kavita.web.mangareader -> kavita.web.client "Loads pages and saves progress with"
        kavita.web.bookreader -> kavita.web.client "Loads book sections and saves progress with"
        kavita.web.adminui -> kavita.web.client "Reads and saves settings with"
        kavita.web.i18n -> kavita.web "Supplies text to"
        kavita.api -> kavita.services "Delegates work to"
        kavita.api -> kavita.data "Reads and writes through"
        kavita.api -> kavita.common "Reads settings with"
        kavita.api.auth -> kavita.data "Stores users and roles in"
        kavita.api.auth -> kavita.services.email "Sends invitations and resets through"
        kavita.api.opds -> kavita.services.reading "Streams pages and files with"
        kavita.api.opds -> kavita.services.filtering "Runs saved filters with"
        kavita.services.scanner -> folders "Walks" "File system"
        kavita.services.scanner -> kavita.services.parser "Parses file names with"
        kavita.services.scanner -> kavita.api.realtime "Reports progress through"
        kavita.services.scanner -> kavita.data "Writes series, volumes and chapters to"
        kavita.services.scanner -> kavita.common "Applies exclude patterns with"
        kavita.services.reading -> folders "Opens archives and books in" "File system"
        kavita.services.reading -> kavita.data "Records progress in"
        kavita.services.jobs -> kavita.services.scanner "Starts scheduled scans of"
        kavita.services.jobs -> kavita.services.plus "Runs periodic syncs of"
        kavita.services.jobs -> kavita.services.themes "Runs the daily update of"
        kavita.services.jobs -> kavita.database "Backs up the file of"
        kavita.services.jobs -> github "Checks for new releases on" "HTTPS"
        kavita.services.jobs -> website "Sends anonymous statistics to" "HTTPS"
        kavita.services.email -> mailserver "Sends mail through" "SMTP"
        kavita.services.plus -> kavitaplus "Validates licences and fetches metadata from" "HTTPS"
        kavita.services.plus -> trackers "Sends reading activity to, via Kavita+" "HTTPS"
        kavita.services.plus -> kavita.services.lists "Syncs curated stacks into"
        kavita.services.themes -> github "Downloads community themes from" "HTTPS"
        kavita.services.reading -> website "Fetches favicons and publisher logos from" "HTTPS"
        kavita.services.filtering -> kavita.data "Builds queries over"
        kavita.services.lists -> kavita.data "Stores collections and lists in"
        kavita.data -> kavita.database "Reads and writes" "SQL"
        kavita.data.migrations -> kavita.database "Upgrades the schema of"
        kavita.packaging -> kavita.api "Compiles and starts"
        kavita.packaging -> kavita.web "Bundles the built files of"
        kavita.web.i18n -> weblate "Receives translations from"
        kavita.tests -> kavita.services "Exercises"
    }

    views {
        systemContext kavita {
            include *
            autolayout lr
        }
        container kavita {
            include *
            autolayout lr
        }
    }
}

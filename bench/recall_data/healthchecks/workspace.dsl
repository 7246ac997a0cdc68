/*
 * Healthchecks (healthchecks/healthchecks at 29b5ec2), modelled by us for archmem's
 * recall benchmark: a Django service that watches cron jobs and scheduled tasks by
 * waiting for their pings, a domain unlike the shop sets. The repository ships no C4
 * model; this one is our own reading of its Django apps: one container per app or
 * process concern, components for the alerting path, the web dashboard, the delivery
 * channels and sign-in, and the shared files (CI, contributor docs, root files) owned by
 * the system itself.
 */
workspace "Healthchecks" "A dead man's switch service for cron jobs and background tasks, written in Python and Django." {

    !identifiers hierarchical

    model {
        owner = person "Check owner" "Adds checks for their jobs, reads the dashboard and gets told when a job goes quiet."
        selfhoster = person "Self-hoster" "Runs a private instance with Docker or from source and configures it through environment variables."

        healthchecks = softwareSystem "Healthchecks" "Records pings from scheduled jobs, decides when a job is late and sends alerts through the channels a team configured." {
            properties {
                "archmem.paths" ".github/**, *.md, LICENSE, .gitignore, requirements.txt, requirements-dev.txt, mypy.ini"
            }

            api = container "Ping and REST API" "Accepts success, start, fail and log signals over HTTP and exposes checks, pings, flips and badges to scripts through a versioned JSON interface." "Python, Django, pydantic" {
                properties {
                    "archmem.paths" "hc/api/**"
                }
                model = component "Check state and ping log" "The data model of checks, pings, flips and delivery records, with the rules that turn a schedule and the last signal into up, grace or down." "Django ORM, cronsim, oncalendar" {
                    properties {
                        "archmem.paths" "hc/api/models.py, hc/api/migrations/**"
                    }
                }
                sendalerts = component "Alert dispatcher" "A long-running loop that notices overdue jobs, records the status change and hands each change to a pool of worker threads for delivery." "Django management command, threads" {
                    properties {
                        "archmem.paths" "hc/api/management/commands/sendalerts.py"
                    }
                }
                smtpd = component "Inbound mail listener" "A small SMTP server that turns messages sent to a check's address into signals, optionally classified by keywords." "aiosmtpd" {
                    properties {
                        "archmem.paths" "hc/api/management/commands/smtpd.py"
                    }
                }
            }

            front = container "Web dashboard" "Server-rendered pages where teams list their jobs, edit schedules, read event logs, manage channels and browse the manual." "Django templates, vanilla JavaScript" {
                tags "Web"
                properties {
                    "archmem.paths" "hc/front/**, templates/front/**, templates/admin/**, templates/base.html, templates/base_bare.html, templates/base_project.html, templates/bad_link.html, templates/try_later.html, templates/badge.svg, templates/contact.vcf, templates/docs/**, search.db, static/**, stuff/**"
                }
                assets = component "Static assets" "Stylesheets, scripts, the icon font and images, compressed ahead of time and served with far-future caching." "CSS, JavaScript, django-compressor, whitenoise" {
                    properties {
                        "archmem.paths" "static/**, stuff/**"
                    }
                }
                docs = component "Built-in manual" "Markdown help pages rendered to HTML fragments, with a full-text index and generated code snippets." "Markdown, Pygments, SQLite FTS5" {
                    properties {
                        "archmem.paths" "templates/docs/**, search.db, hc/front/management/commands/**, templates/front/docs_cron.html, templates/front/docs_nav_item.html, templates/front/docs_search.html, templates/front/docs_single.html, templates/front/snippets/**"
                    }
                }
            }

            integrations = container "Delivery channels" "One package per outside service that can receive an alert: its setup views, message templates and the code that sends the message." "Python, pycurl" {
                properties {
                    "archmem.paths" "hc/integrations/**, hc/api/transports.py"
                }
                email = component "Email alerts" "Builds and sends the alert message to a verified mailbox, with the last received payload and one-click unsubscribe." "Django mail" {
                    properties {
                        "archmem.paths" "hc/integrations/email/**, templates/emails/alert-body-html.html, templates/emails/alert-body-text.html, templates/emails/alert-subject.html"
                    }
                }
                chat = component "Chat and messenger channels" "Posts status changes into team chat rooms and personal messengers." "HTTP APIs, signal-cli socket" {
                    properties {
                        "archmem.paths" "hc/integrations/slack/**, hc/integrations/discord/**, hc/integrations/mattermost/**, hc/integrations/rocketchat/**, hc/integrations/msteamsw/**, hc/integrations/googlechat/**, hc/integrations/zulip/**, hc/integrations/matrix/**, hc/integrations/telegram/**, hc/integrations/signal/**"
                    }
                }
                phone = component "Voice and text messages" "Rings or texts a phone number through a telephony provider, within a monthly allowance per account." "Twilio REST API" {
                    properties {
                        "archmem.paths" "hc/integrations/call/**, hc/integrations/sms/**, hc/integrations/whatsapp/**"
                    }
                }
                hooks = component "Webhooks and local commands" "Calls user-defined URLs with placeholders filled in, runs commands on the server host, fans out to other channels or hands off to Apprise." "pycurl, os.system, Apprise" {
                    properties {
                        "archmem.paths" "hc/integrations/webhook/**, hc/integrations/shell/**, hc/integrations/apprise/**, hc/integrations/group/**, hc/front/validators.py"
                    }
                }
            }

            accounts = container "Accounts and teams" "Users, their preferences and limits, projects with keys, team membership with roles, and scheduled account housekeeping." "Django auth" {
                properties {
                    "archmem.paths" "hc/accounts/**, templates/accounts/**"
                }
                signin = component "Sign-in and second factors" "Magic links, passwords, security keys, one-time codes and the re-authentication step guarding sensitive settings." "Django auth, fido2, pyotp" {
                    properties {
                        "archmem.paths" "hc/accounts/backends.py, hc/accounts/decorators.py, hc/accounts/forms.py, hc/lib/webauthn.py, templates/accounts/login.html, templates/accounts/login_totp.html, templates/accounts/login_webauthn.html, templates/accounts/login_link_sent.html, templates/accounts/check_token_submit.html, templates/accounts/sudo.html, templates/accounts/add_totp.html, templates/accounts/remove_totp.html, templates/accounts/add_credential.html, templates/accounts/remove_credential.html"
                    }
                }
            }

            payments = container "Billing hooks" "The subscription record and the pricing and billing routes that the hosted edition fills in; here they are stubs." "Django" {
                properties {
                    "archmem.paths" "hc/payments/**"
                }
            }

            lib = container "Shared helpers" "Small modules every app leans on: the HTTP client, object storage for large payloads, signing, badges, dates and time zones, metrics counters and text utilities." "Python" {
                properties {
                    "archmem.paths" "hc/lib/**"
                }
                mail = component "Outgoing mail" "Renders subject, text and HTML templates into messages and hands them to the SMTP relay, in the background or inline." "Django mail, smtplib" {
                    properties {
                        "archmem.paths" "hc/lib/emails.py, templates/emails/**"
                    }
                }
            }

            logs = container "Error log store" "A logging handler that writes application errors into a table, plus a daily digest to administrators." "Django" {
                properties {
                    "archmem.paths" "hc/logs/**"
                }
            }

            config = container "Settings and routing" "Turns environment variables into Django settings, mounts every app's URLs and provides the process entry points." "Django settings, WSGI" {
                properties {
                    "archmem.paths" "hc/settings.py, hc/urls.py, hc/wsgi.py, hc/__init__.py, hc/test.py, hc/local_settings.py.example, manage.py"
                }
            }

            docker = container "Container image" "The published image: a two-stage build, an application server that also supervises the background commands, and a compose example." "Docker, uWSGI" {
                properties {
                    "archmem.paths" "docker/**"
                }
            }

            database = container "Relational database" "Holds checks, pings, flips, channels and accounts; PostgreSQL, MySQL, MariaDB or SQLite." "PostgreSQL, MySQL, MariaDB, SQLite" {
                tags "Database"
            }
        }

        jobs = softwareSystem "Monitored jobs" "Cron jobs, backup scripts, CI pipelines and devices that report in by HTTP request or email." {
            tags "External"
        }
        services = softwareSystem "Alerting services" "Chat, paging, push and issue-tracking services that accept messages over HTTP." {
            tags "External"
        }
        twilio = softwareSystem "Telephony provider" "Twilio: places voice calls and sends SMS and WhatsApp messages, then reports delivery status back." {
            tags "External"
        }
        relay = softwareSystem "SMTP relay" "The mail server that delivers outgoing messages and sends bounce reports back." {
            tags "External"
        }
        objectstore = softwareSystem "Object storage" "An S3-compatible bucket for request bodies too large to keep in the database." {
            tags "External"
        }

        jobs -> healthchecks.api "Reports success, start and failure to" "HTTPS"
        jobs -> healthchecks.api.smtpd "Reports by email to" "SMTP"
        owner -> healthchecks.front "Manages checks and channels with" "HTTPS"
        owner -> healthchecks.api "Automates check set-up with" "HTTPS, JSON"
        selfhoster -> healthchecks.docker "Deploys with"
        selfhoster -> healthchecks.config "Configures through environment variables"
        healthchecks.config -> healthchecks.api "Routes /ping, /api and /badge requests to"
        healthchecks.config -> healthchecks.front "Routes dashboard and /docs requests to"
        healthchecks.config -> healthchecks.accounts "Routes /accounts requests to"
        healthchecks.config -> healthchecks.integrations "Routes channel set-up requests to"
        healthchecks.config -> healthchecks.logs "Sends application errors to"
        healthchecks.api.model -> healthchecks.database "Reads and writes" "SQL"
        healthchecks.api.model -> healthchecks.lib "Stores large request bodies with"
        healthchecks.api.smtpd -> healthchecks.api.model "Records email signals through"
        healthchecks.api.sendalerts -> healthchecks.api.model "Finds overdue checks and pending flips in"
        healthchecks.api.sendalerts -> healthchecks.integrations "Delivers each status change through"
        healthchecks.api -> healthchecks.accounts "Authenticates keys against projects in"
        healthchecks.front -> healthchecks.api.model "Reads and edits checks through"
        healthchecks.front -> healthchecks.accounts "Checks project membership and roles with"
        healthchecks.front -> healthchecks.front.assets "Serves pages with"
        healthchecks.front -> healthchecks.integrations "Sends test notifications through"
        healthchecks.integrations -> healthchecks.integrations.hooks "Validates webhook addresses with"
        healthchecks.integrations.email -> healthchecks.lib.mail "Sends alert messages with"
        healthchecks.integrations.chat -> services "Posts messages to" "HTTPS"
        healthchecks.integrations.hooks -> services "Calls" "HTTPS"
        healthchecks.integrations.phone -> twilio "Places calls and sends texts through" "HTTPS"
        healthchecks.integrations.phone -> healthchecks.accounts "Counts monthly calls and texts against"
        healthchecks.integrations -> healthchecks.lib "Makes outbound requests with"
        twilio -> healthchecks.api "Reports delivery status to" "HTTPS"
        healthchecks.lib.mail -> relay "Sends mail through" "SMTP"
        relay -> healthchecks.api "Reports bounces to" "HTTPS"
        healthchecks.lib -> objectstore "Uploads and fetches request bodies in" "S3 API"
        healthchecks.accounts -> healthchecks.lib.mail "Sends login links, reports and notices with"
        healthchecks.accounts.signin -> healthchecks.accounts "Signs users into"
        healthchecks.accounts -> healthchecks.payments "Reads plan limits from"
        healthchecks.logs -> healthchecks.database "Writes log records to" "SQL"
        healthchecks.docker -> healthchecks.config "Packages and starts"
        healthchecks.docker -> healthchecks.api.sendalerts "Supervises"
        healthchecks.docker -> healthchecks.api.smtpd "Optionally supervises"
    }

    views {
        systemContext healthchecks {
            include *
            autolayout lr
        }
        container healthchecks {
            include *
            autolayout lr
        }
    }
}

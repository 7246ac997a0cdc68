/*
 * Signal-Server (signalapp/Signal-Server at 218a1cd), modelled by us for archmem's recall
 * benchmark: the Java (Dropwizard) chat service behind the Signal apps. The repository ships
 * no C4 model; this one is our own reading of it: the chat service as one container with
 * components for the areas people change most, the maintenance commands that run from the
 * same jar, the WebSocket library, the API documentation module, the two test suites, and
 * the data stores and outside services it talks to. Shared build and CI files belong to the
 * system itself.
 */
workspace "Signal-Server" "The server that registers Signal accounts, relays end-to-end encrypted messages and stores keys, profiles and backups, written in Java on Dropwizard." {

    !identifiers hierarchical

    model {
        user = person "Signal app user" "Uses a Signal phone or desktop app that talks to the server over HTTPS, WebSockets and gRPC."
        operator = person "Server operator" "Deploys the service, edits its static and dynamic configuration and runs the maintenance commands."

        signal = softwareSystem "Signal-Server" "Registers accounts and devices, relays encrypted messages, hands out pre-keys and credentials, and keeps profiles, payments and backup records." {
            properties {
                "archmem.paths" ".github/**, README.md, TESTING.md, LICENSE, .gitignore, .gitmodules, .editorconfig, .java-version, .mvn/**, mvnw, mvnw.cmd, pom.xml"
            }

            chat = container "Chat service" "The Dropwizard application started by WhisperServerService: REST controllers, gRPC services, WebSocket endpoints and all the managers behind them." "Java, Dropwizard, Jersey, gRPC" {
                properties {
                    "archmem.paths" "service/pom.xml, service/assembly.xml, service/src/main/**"
                }
                accounts = component "Accounts and devices" "Creating, updating and deleting accounts, linking and removing devices, usernames, phone number changes and one-time-password keys." "DynamoDB, Redis" {
                    properties {
                        "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/storage/Account*.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/Device.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/DeviceCapability.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/DeviceIdDeserializer.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/DeviceIdentityInfo.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/DeviceSpec.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/ChangeNumber*.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/PhoneNumberIdentifiers.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/*Totp*.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/Username*.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/LinkDeviceTokenAlreadyUsedException.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/AccountController*.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/AccountIdentityResponseBuilder.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/DeviceController.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/DeviceLimitExceededException.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/ProvisioningController.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/Accounts*.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/DevicesGrpcService.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/DeviceCapabilityUtil.java, service/src/main/java/org/whispersystems/textsecuregcm/identity/**, service/src/main/java/org/whispersystems/textsecuregcm/util/LinkDeviceToken.java, service/src/main/java/org/whispersystems/textsecuregcm/util/UsernameHashZkProofVerifier.java"
                    }
                }
                registration = component "Registration and verification" "Phone number verification sessions, captcha and push challenges during sign-up, registration lock and recovery passwords, and carrier lookups." "gRPC client, HLR Lookup" {
                    properties {
                        "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/controllers/RegistrationController.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/VerificationController.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/VerificationSessionRateLimitExceededException.java, service/src/main/java/org/whispersystems/textsecuregcm/registration/**, service/src/main/java/org/whispersystems/textsecuregcm/telephony/**, service/src/main/java/org/whispersystems/textsecuregcm/storage/VerificationSession*.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/PhoneNumberRecoveryPasswords*.java, service/src/main/java/org/whispersystems/textsecuregcm/auth/PhoneVerificationTokenManager.java, service/src/main/java/org/whispersystems/textsecuregcm/auth/RegistrationLock*.java, service/src/main/java/org/whispersystems/textsecuregcm/auth/StoredRegistrationLock.java, service/src/main/java/org/whispersystems/textsecuregcm/spam/Registration*.java, service/src/main/java/org/whispersystems/textsecuregcm/captcha/RegistrationCaptchaManager.java, service/src/main/proto/RegistrationService.proto"
                    }
                }
                auth = component "Authentication and credentials" "Checks device passwords on every request and mints the short-lived credentials, sender certificates and tokens clients present to other Signal services." "Dropwizard auth, HMAC, JWT" {
                    properties {
                        "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/auth/**, service/src/main/java/org/whispersystems/textsecuregcm/websocket/WebSocketAccountAuthenticator.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/CertificateController.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/SecureValueRecovery2Controller.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/SecureStorageController.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/CallRoutingControllerV2.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/CallLinkController.java, service/src/main/java/org/whispersystems/textsecuregcm/securestorage/**, service/src/main/java/org/whispersystems/textsecuregcm/securevaluerecovery/**, service/src/main/java/org/whispersystems/textsecuregcm/grpc/Credentials*.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/CallingGrpcService.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/ExternalServiceDefinitions.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/GroupSendTokenUtil.java"
                    }
                }
                messages = component "Message delivery" "Accepts sealed and unsealed messages, queues them per device in Redis with DynamoDB overflow, and streams them to connected clients with receipts." "Redis, DynamoDB, Reactor" {
                    properties {
                        "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/controllers/MessageController.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/MismatchedDevices*.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/MultiRecipientMismatchedDevicesException.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/Message*.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/RedisDynamoDb*.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/MirroringMessageStream.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/RemovedMessage.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/MrmDataMissingException.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/ConflictingMessageConsumerException.java, service/src/main/java/org/whispersystems/textsecuregcm/push/MessageSender.java, service/src/main/java/org/whispersystems/textsecuregcm/push/ReceiptSender.java, service/src/main/java/org/whispersystems/textsecuregcm/push/MessageUtil.java, service/src/main/java/org/whispersystems/textsecuregcm/push/MessageTooLargeException.java, service/src/main/java/org/whispersystems/textsecuregcm/providers/**, service/src/main/java/org/whispersystems/textsecuregcm/websocket/**, service/src/main/java/org/whispersystems/textsecuregcm/grpc/Messages*.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/MessageDispatcher.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/PendingAcknowledgementTracker.java, service/src/main/java/org/whispersystems/textsecuregcm/limits/*MessageDeliveryLoopMonitor.java, service/src/main/java/org/whispersystems/textsecuregcm/metrics/MessageMetrics.java, service/src/main/resources/lua/*.lua"
                    }
                }
                fdb = component "FoundationDB message store" "The newer, sharded mailbox store that is being rolled out beside the Redis queues, with its own publishers, streams and expiry jobs." "FoundationDB" {
                    properties {
                        "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/storage/foundationdb/**, service/src/main/java-templates/**, service/src/main/java/org/whispersystems/textsecuregcm/configuration/FoundationDbMessagesConfiguration.java, service/src/main/java/org/whispersystems/textsecuregcm/configuration/FoundationDbDatabaseFactory.java, service/src/main/java/org/whispersystems/textsecuregcm/workers/*FoundationDb*.java"
                    }
                }
                keys = component "Pre-keys and key transparency" "Stores the signed and one-time keys each device uploads, hands them out to senders, and proxies lookups to the key transparency log." "DynamoDB, S3" {
                    properties {
                        "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/controllers/KeysController.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/KeyTransparencyController.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/KeysManager.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/*PreKey*.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/KEMPreKeyPage.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/KeyIdUtil.java, service/src/main/java/org/whispersystems/textsecuregcm/keytransparency/**, service/src/main/java/org/whispersystems/textsecuregcm/grpc/Keys*.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/KeyTransparencyGrpcService.java, service/src/main/java/org/whispersystems/textsecuregcm/workers/RemoveOrphanedPreKeyPagesCommand.java, service/src/main/proto/KeyTransparencyService.proto"
                    }
                }
                profiles = component "Profiles and badges" "Versioned encrypted profiles, avatar upload forms, and the donor badges shown on them." "DynamoDB, Redis" {
                    properties {
                        "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/controllers/ProfileController.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/Profile*.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/VersionedProfile*.java, service/src/main/java/org/whispersystems/textsecuregcm/badges/**, service/src/main/java/org/whispersystems/textsecuregcm/grpc/Profile*.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/AvatarChangeUtil.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/BadgeGrpcHelper.java, service/src/main/java/org/whispersystems/textsecuregcm/util/ProfileHelper.java, service/src/main/resources/org/signal/badges/**"
                    }
                }
                push = component "Push notifications" "Wakes phones through Apple and Google push, schedules delayed and background notifications, and runs push experiments." "Pushy, Firebase Admin" {
                    properties {
                        "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/push/**, service/src/main/java/org/whispersystems/textsecuregcm/experiment/**, service/src/main/java/org/whispersystems/textsecuregcm/scheduler/**, service/src/main/java/org/whispersystems/textsecuregcm/storage/PushChallengeDynamoDb.java, service/src/main/java/org/whispersystems/textsecuregcm/workers/*Idle*.java, service/src/main/java/org/whispersystems/textsecuregcm/workers/*PushNotification*.java, service/src/main/resources/lua/apn/**"
                    }
                }
                payments = component "Donations and subscriptions" "Recurring and one-time donations, in-app purchases, receipt credentials and currency conversion." "Stripe, Braintree, App Store, Google Play" {
                    properties {
                        "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/subscriptions/**, service/src/main/java/org/whispersystems/textsecuregcm/currency/**, service/src/main/java/org/whispersystems/textsecuregcm/controllers/SubscriptionController.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/DonationController.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/OneTimeDonationController.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/LoginPurchaseController.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/PaymentsController.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/Subscription*.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/IssuedReceiptsManager.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/RedeemedReceiptsManager.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/DonationPermits*.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/OneTimeDonationsManager.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/*Donation*.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/Subscriptions*.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/PaymentsGrpcService.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/LoginPurchaseGrpcService.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/ProductConfigurationGrpcService.java, service/src/main/graphql/**, service/src/main/resources/org/signal/donations/**, service/src/main/resources/org/signal/bankmandate/**"
                    }
                }
                backups = component "Backups" "Zero-knowledge backup ids, backup quotas and media copying to the backup CDN, with expiry of abandoned backups." "DynamoDB, CDN3" {
                    properties {
                        "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/backup/**, service/src/main/java/org/whispersystems/textsecuregcm/controllers/ArchiveController.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/Backups*.java, service/src/main/java/org/whispersystems/textsecuregcm/workers/*Backup*.java, service/src/main/java/org/whispersystems/textsecuregcm/metrics/BackupMetrics.java"
                    }
                }
                grpcapi = component "gRPC API" "The protobuf service definitions and the shared interceptors that authenticate, validate, allow-list and map errors for every gRPC call." "gRPC, protobuf, simple-grpc" {
                    properties {
                        "archmem.paths" "service/src/main/proto/org/signal/chat/**, service/src/main/java/org/whispersystems/textsecuregcm/grpc/*Interceptor.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/GrpcExceptions.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/ConvertibleToGrpcStatus.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/validators/**, service/src/main/java/org/whispersystems/textsecuregcm/grpc/RequestAttributes*.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/ServerInterceptorUtil.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/GrpcServiceIdentifierUtil.java, service/src/main/java/org/whispersystems/textsecuregcm/auth/grpc/**"
                    }
                }
                edge = component "Front door and filters" "The HTTP/2 listener that routes gRPC and WebSocket traffic, plus the servlet filters and exception mappers every REST request passes through." "Netty, Jetty, Jersey" {
                    properties {
                        "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/grpc/net/**, service/src/main/java/org/whispersystems/textsecuregcm/jetty/**, service/src/main/java/org/whispersystems/textsecuregcm/filters/**, service/src/main/java/org/whispersystems/textsecuregcm/mappers/**, service/src/main/java/org/whispersystems/textsecuregcm/util/ua/**"
                    }
                }
                limits = component "Rate limits and abuse checks" "Per-account and per-IP leaky buckets, captcha and push challenges after suspicious sending, and hooks into the private spam filter." "Redis, Lua" {
                    properties {
                        "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/limits/**, service/src/main/java/org/whispersystems/textsecuregcm/spam/**, service/src/main/java/org/whispersystems/textsecuregcm/captcha/**, service/src/main/java/org/whispersystems/textsecuregcm/asn/**, service/src/main/java/org/whispersystems/textsecuregcm/controllers/ChallengeController.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/RateLimitExceededException.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/RateLimitKeys.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/ChallengeGrpcService.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/RateLimitUtil.java, service/src/main/resources/lua/validate_rate_limit.lua, spam-filter"
                    }
                }
                config = component "Configuration" "The static YAML configuration with its secrets bundle, and the dynamic configuration and remote config flags polled from an S3 object at runtime." "Dropwizard config, Jackson, S3" {
                    properties {
                        "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/configuration/**, service/src/main/java/org/whispersystems/textsecuregcm/WhisperServerConfiguration.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/DynamicConfigurationManager.java, service/src/main/java/org/whispersystems/textsecuregcm/storage/RemoteConfig*.java, service/src/main/java/org/whispersystems/textsecuregcm/controllers/RemoteConfigController.java, service/src/main/java/org/whispersystems/textsecuregcm/grpc/RemoteConfigurationGrpcService.java, service/src/main/java/org/whispersystems/textsecuregcm/s3/**, service/config/**, service/src/main/resources/META-INF/**"
                    }
                }
                observability = component "Metrics and logging" "Micrometer meters exported over OpenTelemetry, request and WebSocket metrics, and the log appenders and filters." "Micrometer, OpenTelemetry, Logback" {
                    properties {
                        "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/metrics/**, service/src/main/java/org/whispersystems/textsecuregcm/util/logging/**"
                    }
                }
                redis = component "Redis clients" "Fault-tolerant wrappers around Lettuce for the several Redis clusters, with per-shard circuit breakers and Lua script helpers." "Lettuce, Resilience4j" {
                    properties {
                        "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/redis/**, service/src/main/java/org/whispersystems/textsecuregcm/util/RedisClusterUtil.java"
                    }
                }
            }

            workers = container "Maintenance commands" "One-off and scheduled Dropwizard commands run from the same jar: crawlers that clean up accounts, backups, queues and keys, and the long-running persister and scheduler services." "Java, Dropwizard commands" {
                properties {
                    "archmem.paths" "service/src/main/java/org/whispersystems/textsecuregcm/workers/**"
                }
            }

            wslib = container "WebSocket library" "A small in-house library that carries REST-style requests and responses over one WebSocket, with its own protobuf framing and request log." "Jetty WebSocket, protobuf" {
                properties {
                    "archmem.paths" "websocket-resources/**"
                }
            }

            apidoc = container "API documentation" "Generates the OpenAPI description of the REST endpoints and the gRPC reference pages published to GitHub Pages." "Swagger, sabledocs" {
                properties {
                    "archmem.paths" "api-doc/**"
                }
            }

            integration = container "Integration tests" "Tests that register real accounts and send messages against a deployed staging environment." "JUnit, failsafe" {
                properties {
                    "archmem.paths" "integration-tests/**"
                }
            }

            tests = container "Service test suite" "Unit and component tests with local Redis, DynamoDB, FoundationDB and S3 stand-ins, plus a local test server." "JUnit 5, Testcontainers, Mockito" {
                properties {
                    "archmem.paths" "service/src/test/**"
                }
            }

            redisdb = container "Redis clusters" "Separate clusters for caches, message queues, pub/sub, push scheduling and rate limits." "Redis Cluster" {
                tags "Database"
            }
            dynamodb = container "DynamoDB tables" "Durable tables for accounts, keys, profiles, persisted messages, backups and receipts." "Amazon DynamoDB" {
                tags "Database"
            }
            foundationdb = container "FoundationDB clusters" "Sharded message mailboxes for the new message store." "FoundationDB" {
                tags "Database"
            }
        }

        pushsvc = softwareSystem "Push services" "Apple Push Notification service and Firebase Cloud Messaging." {
            tags "External"
        }
        regsvc = softwareSystem "Registration service" "Signal's separate service that sends verification codes by SMS or voice and checks them." {
            tags "External"
        }
        processors = softwareSystem "Payment processors" "Stripe, Braintree/PayPal, the Apple App Store and Google Play billing." {
            tags "External"
        }
        enclaves = softwareSystem "Secure enclaves and storage" "Secure value recovery, the storage service and contact discovery, reached with credentials this server mints." {
            tags "External"
        }
        ktsvc = softwareSystem "Key transparency service" "An append-only log of identity keys that clients can search and monitor." {
            tags "External"
        }
        cdn = softwareSystem "Attachment storage" "Cloud buckets and CDNs (Google Cloud Storage, the tus-based CDN3, S3) holding attachments, avatars and backup media." {
            tags "External"
        }
        captchaprov = softwareSystem "Captcha provider" "Scores captcha tokens solved by people who hit a challenge." {
            tags "External"
        }
        carriers = softwareSystem "Carrier lookup" "HLR lookup service returning the mobile network behind a phone number." {
            tags "External"
        }

        user -> signal.chat "Registers, sends and receives messages with" "HTTPS, WebSocket, gRPC"
        operator -> signal.chat.config "Edits static and dynamic settings in"
        operator -> signal.workers "Runs"
        signal.chat.edge -> signal.chat.grpcapi "Routes HTTP/2 gRPC streams to"
        signal.chat.edge -> signal.wslib "Routes WebSocket upgrades to"
        signal.chat.grpcapi -> signal.chat.auth "Authenticates calls with"
        signal.chat.grpcapi -> signal.chat.config "Reads the allow-list from"
        signal.chat.messages -> signal.wslib "Delivers queued messages over"
        signal.chat.messages -> signal.chat.fdb "Mirrors writes, reads and deletions to"
        signal.chat.messages -> signal.chat.push "Wakes offline devices through"
        signal.chat.messages -> signal.chat.limits "Checks sending limits and spam with"
        signal.chat.messages -> signal.chat.accounts "Resolves recipients and devices with"
        signal.chat.messages -> signal.chat.redis "Queues messages with"
        signal.chat.messages -> signal.dynamodb "Persists overflowing queues to"
        signal.chat.fdb -> signal.foundationdb "Stores mailboxes in"
        signal.chat.accounts -> signal.dynamodb "Stores accounts in"
        signal.chat.accounts -> signal.chat.redis "Caches accounts in"
        signal.chat.accounts -> signal.chat.keys "Clears keys of removed devices with"
        signal.chat.registration -> regsvc "Sends and checks verification codes through" "gRPC"
        signal.chat.registration -> carriers "Looks up carriers with" "HTTPS"
        signal.chat.registration -> signal.chat.accounts "Creates and reclaims accounts with"
        signal.chat.registration -> signal.chat.limits "Asks for captcha and fraud checks from"
        signal.chat.registration -> signal.chat.push "Sends push challenges with"
        signal.chat.auth -> signal.chat.accounts "Looks up devices and password hashes in"
        signal.chat.auth -> enclaves "Mints credentials for"
        signal.chat.keys -> signal.dynamodb "Stores pre-keys in"
        signal.chat.keys -> cdn "Stores one-time key pages in" "S3"
        signal.chat.keys -> ktsvc "Proxies searches to" "gRPC"
        signal.chat.profiles -> signal.chat.accounts "Records the current profile version on"
        signal.chat.profiles -> cdn "Issues avatar upload forms for"
        signal.chat.push -> pushsvc "Sends notifications through" "HTTPS/2"
        signal.chat.push -> signal.chat.redis "Schedules delayed notifications in"
        signal.chat.payments -> processors "Charges and verifies purchases with" "HTTPS, GraphQL"
        signal.chat.payments -> signal.chat.profiles "Grants badges on"
        signal.chat.backups -> cdn "Copies and deletes backup media on" "HTTPS"
        signal.chat.backups -> signal.dynamodb "Tracks backup usage in"
        signal.chat.limits -> signal.chat.redis "Keeps buckets in"
        signal.chat.limits -> captchaprov "Verifies captcha tokens with" "HTTPS"
        signal.chat.redis -> signal.redisdb "Talks to" "RESP"
        signal.chat.config -> cdn "Polls the dynamic configuration object from" "S3"
        signal.chat.observability -> signal.chat.config "Reads the metrics allow-list from"
        signal.workers -> signal.chat.accounts "Crawls and cleans up"
        signal.workers -> signal.chat.messages "Persists queued messages with"
        signal.workers -> signal.chat.fdb "Trims and expires mailboxes in"
        signal.workers -> signal.chat.backups "Expires backups with"
        signal.apidoc -> signal.chat "Documents the endpoints of"
        signal.integration -> signal.chat "Exercises a deployed"
        signal.tests -> signal.chat "Tests"
    }

    views {
        systemContext signal {
            include *
            autolayout lr
        }
        container signal {
            include *
            autolayout lr
        }
    }
}

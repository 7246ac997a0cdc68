/*
 * Feast (feast-dev/feast at f0bc070), modelled by us for archmem's recall benchmark:
 * an open source feature store for machine learning. The repository ships no C4 model;
 * this one is our own reading of it: the Python SDK with components for the parts people
 * change most (the FeatureStore API, the CLI, the registry, offline and online stores,
 * materialization engines, transformations, the type system, permissions, monitoring),
 * the Python servers started by `feast serve*`, the web UI, the Kubernetes operator, the
 * Go feature server, the protobuf contracts, the Helm charts, the docs and the tests.
 * Java serving is kept as one peripheral container. Shared root files belong to the system.
 */
workspace "Feast" "An open source feature store that keeps ML features consistent between training and serving." {

    !identifiers hierarchical

    model {
        mleng = person "ML engineer" "Defines entities and feature views in Python, builds training sets and reads features at prediction time."
        platform = person "Platform engineer" "Runs the registry, the feature servers and the scheduled materialization on Kubernetes."

        feast = softwareSystem "Feast" "Registers feature definitions, builds point-in-time correct training data from warehouses and serves the latest feature values with low latency." {
            properties {
                "archmem.paths" ".github/**, *.md, LICENSE, Makefile, pyproject.toml, pixi.lock, MANIFEST.in, OWNERS, CODEOWNERS, .pre-commit-config.yaml, .commitlintrc.yaml, .releaserc.js, .secrets.baseline, .codecov.yaml, .gitignore, .dockerignore, .gitpod.yml, .gitpod.Dockerfile, .prow.yaml, .prow/**, .readthedocs.yml, .gitbook.yaml, .helmdocsignore, .claude/**, .cursor/**, skills/**, community/**, scripts/**, infra/scripts/**, infra/templates/**"
            }

            sdk = container "Python SDK" "The feast Python package: the object definitions, the feature_store.yaml config, the CLI and all pluggable store backends." "Python, pandas, pyarrow" {
                properties {
                    "archmem.paths" "sdk/python/feast/**, sdk/python/pyproject.toml, sdk/python/requirements/**, sdk/python/README.md, sdk/python/.gitignore"
                }
                core = component "FeatureStore API" "The FeatureStore class and the objects people declare (entities, data sources, feature views, feature services), plus parsing of feature_store.yaml and the apply logic." "Python" {
                    properties {
                        "archmem.paths" "sdk/python/feast/feature_store.py, sdk/python/feast/repo_config.py, sdk/python/feast/repo_operations.py, sdk/python/feast/repo_contents.py, sdk/python/feast/feature_view.py, sdk/python/feast/base_feature_view.py, sdk/python/feast/batch_feature_view.py, sdk/python/feast/stream_feature_view.py, sdk/python/feast/entity.py, sdk/python/feast/data_source.py, sdk/python/feast/feature_service.py, sdk/python/feast/feature_view_projection.py, sdk/python/feast/project.py, sdk/python/feast/utils.py, sdk/python/feast/errors.py, sdk/python/feast/constants.py, sdk/python/feast/diff/**, sdk/python/feast/labeling/**, sdk/python/feast/feature_view_utils.py, sdk/python/feast/version_utils.py"
                    }
                }
                cli = component "Command line and templates" "The feast command (init, apply, plan, materialize, serve, ui and the object subcommands) and the starter repositories that feast init copies." "click" {
                    properties {
                        "archmem.paths" "sdk/python/feast/cli/**, sdk/python/feast/templates/**, sdk/python/feast/dbt/**"
                    }
                }
                registry = component "Registry backends" "Keeps the metadata of every registered object, either as one protobuf file on disk or object storage, in SQL tables, in Snowflake, or behind a remote server, with a local cache." "protobuf, SQLAlchemy" {
                    properties {
                        "archmem.paths" "sdk/python/feast/infra/registry/**"
                    }
                }
                offline = component "Offline stores" "Runs point-in-time joins and bulk reads against warehouses and files to build training data and feed materialization." "pandas, dask, DuckDB, SQL engines" {
                    properties {
                        "archmem.paths" "sdk/python/feast/infra/offline_stores/**, sdk/python/feast/infra/data_sources/**, sdk/python/feast/infra/utils/**, sdk/python/feast/saved_dataset.py"
                    }
                }
                online = component "Online stores" "Writes and reads the latest feature values per entity key in key-value and vector databases for low-latency lookups." "Redis, DynamoDB, SQLite, PostgreSQL, Milvus" {
                    properties {
                        "archmem.paths" "sdk/python/feast/infra/online_stores/**, sdk/python/feast/infra/key_encoding_utils.py, sdk/python/feast/online_response.py, sdk/python/feast/vector_store.py"
                    }
                }
                compute = component "Materialization engines" "Copies feature values from the offline side into the online store in batches, locally or on Spark, Ray, Kubernetes jobs, Lambda or Flink." "Python, Spark, Ray" {
                    properties {
                        "archmem.paths" "sdk/python/feast/infra/compute_engines/**, sdk/python/feast/infra/common/**, sdk/python/feast/infra/provider.py, sdk/python/feast/infra/passthrough_provider.py, sdk/python/feast/infra/ray_initializer.py, sdk/python/feast/infra/ray_shared_utils.py"
                    }
                }
                transforms = component "Transformations" "Computes derived features on the fly or at write time with pandas, Python, SQL or Spark code, including windowed aggregations." "pandas, substrait" {
                    properties {
                        "archmem.paths" "sdk/python/feast/transformation/**, sdk/python/feast/on_demand_feature_view.py, sdk/python/feast/aggregation/**, sdk/python/feast/transformation_server.py, sdk/python/feast/infra/transformation_servers/**"
                    }
                }
                types = component "Type system" "Maps the column types of each data source to Feast value types and converts Python values to and from protobuf values." "protobuf" {
                    properties {
                        "archmem.paths" "sdk/python/feast/type_map.py, sdk/python/feast/types.py, sdk/python/feast/value_type.py, sdk/python/feast/field.py, sdk/python/feast/proto_json.py"
                    }
                }
                permissions = component "Auth and permissions" "Checks who is calling (OIDC, Kubernetes service accounts) and whether a permission policy lets them read or write a given object." "PyJWT, kubernetes client" {
                    properties {
                        "archmem.paths" "sdk/python/feast/permissions/**"
                    }
                }
                monitoring = component "Monitoring and data quality" "Publishes Prometheus metrics about requests and feature freshness and computes data quality statistics against baselines." "prometheus_client" {
                    properties {
                        "archmem.paths" "sdk/python/feast/monitoring/**, sdk/python/feast/metrics.py, sdk/python/feast/dqm/**"
                    }
                }
            }

            servers = container "Feast servers" "The long-running Python processes behind feast serve, serve_offline and serve_registry, packaged as container images." "FastAPI, gunicorn, gRPC, Arrow Flight" {
                properties {
                    "archmem.paths" "sdk/python/feast/feature_server.py, sdk/python/feast/offline_server.py, sdk/python/feast/registry_server.py, sdk/python/feast/api/**, sdk/python/feast/infra/feature_servers/**, sdk/python/feast/infra/mcp_servers/**, sdk/python/feast/feature_server_utils.py, sdk/python/feast/grpc_error_interceptor.py, sdk/python/feast/rest_error_handler.py, sdk/python/feast/cli/serve.py"
                }
                featureserver = component "Online feature server" "The HTTP service that answers feature lookups, accepts pushed rows and can trigger materialization for remote clients." "FastAPI, gunicorn" {
                    properties {
                        "archmem.paths" "sdk/python/feast/feature_server.py, sdk/python/feast/feature_server_utils.py, sdk/python/feast/infra/feature_servers/**, sdk/python/feast/infra/mcp_servers/**"
                    }
                }
                offlineserver = component "Offline server" "Lets clients run historical retrieval and offline writes remotely over Arrow Flight." "pyarrow.flight" {
                    properties {
                        "archmem.paths" "sdk/python/feast/offline_server.py, sdk/python/feast/arrow_error_handler.py"
                    }
                }
                registryserver = component "Registry server" "Exposes the registry over gRPC and a REST API so remote clients and the UI can list and change objects." "gRPC, FastAPI" {
                    properties {
                        "archmem.paths" "sdk/python/feast/registry_server.py, sdk/python/feast/api/**, sdk/python/feast/grpc_error_interceptor.py"
                    }
                }
            }

            ui = container "Web UI" "The React app for browsing projects, feature views and lineage, and for editing objects, served by feast ui." "React, TypeScript, Elastic UI" {
                tags "Web"
                properties {
                    "archmem.paths" "ui/**, sdk/python/feast/ui/**, sdk/python/feast/ui_server.py, sdk/python/feast/cli/ui.py"
                }
            }

            operator = container "Kubernetes operator" "Watches FeatureStore custom resources and creates the deployments, services, config maps, cron jobs and RBAC for a Feast install." "Go, controller-runtime" {
                properties {
                    "archmem.paths" "infra/feast-operator/**"
                }
            }

            goserver = container "Go feature server" "A faster alternative online server written in Go that reads the registry and online store directly and speaks HTTP and gRPC." "Go" {
                properties {
                    "archmem.paths" "go/**, go.mod, go.sum, sdk/python/feast/embedded_go/**"
                }
            }

            java = container "Java serving" "The older Java serving service and client library, kept for existing users." "Java, Maven" {
                properties {
                    "archmem.paths" "java/**"
                }
            }

            protos = container "Protobuf contracts" "The message and service definitions for registry objects, values and the serving API, and the Python code generated from them." "Protocol Buffers" {
                properties {
                    "archmem.paths" "protos/**, sdk/python/feast/protos/**"
                }
            }

            charts = container "Helm charts and Terraform" "Charts and infrastructure templates for installing the feature server and the operator without writing manifests by hand." "Helm, Terraform" {
                properties {
                    "archmem.paths" "infra/charts/**, infra/terraform/**"
                }
            }

            docs = container "Documentation and website" "The GitBook reference and how-to guides, the API docs, the project website with its blog, and runnable examples." "GitBook, Sphinx" {
                properties {
                    "archmem.paths" "docs/**, infra/website/**, sdk/python/docs/**, examples/**"
                }
            }

            tests = container "Python test suites" "Unit tests, universal integration tests that run against many store backends, and component tests for Spark and Ray." "pytest" {
                properties {
                    "archmem.paths" "sdk/python/tests/**, sdk/python/pytest.ini"
                }
            }
        }

        warehouse = softwareSystem "Data warehouses and lakes" "BigQuery, Snowflake, Redshift, Spark, Trino, PostgreSQL and Parquet files holding historical feature data." {
            tags "External"
        }
        kvstores = softwareSystem "Online databases" "Redis, DynamoDB, PostgreSQL, Milvus and similar databases that hold the latest values." {
            tags "External"
        }
        metastore = softwareSystem "Registry storage" "The local file, S3 or GCS bucket, or SQL database where the registry is persisted." {
            tags "External"
        }
        idp = softwareSystem "Identity provider" "An OpenID Connect provider or the Kubernetes API that vouches for callers." {
            tags "External"
        }
        k8s = softwareSystem "Kubernetes cluster" "The cluster where the operator runs and creates workloads." {
            tags "External"
        }
        lineagesink = softwareSystem "Lineage and experiment tracking" "OpenLineage collectors and MLflow servers that receive metadata about features." {
            tags "External"
        }

        mleng -> feast.sdk.core "Defines features and builds training sets with" "Python"
        mleng -> feast.sdk.cli "Runs feast apply and materialize with"
        mleng -> feast.ui "Browses the catalogue in" "HTTPS"
        platform -> feast.operator "Deploys Feast with" "FeatureStore CR"
        platform -> feast.charts "Installs servers with"

        feast.sdk.cli -> feast.sdk.core "Runs apply, plan and materialize through"
        feast.sdk.core -> feast.sdk.registry "Stores and reads definitions in"
        feast.sdk.core -> feast.sdk.offline "Gets historical features from"
        feast.sdk.core -> feast.sdk.online "Reads the latest values from"
        feast.sdk.core -> feast.sdk.compute "Materializes feature views with"
        feast.sdk.core -> feast.sdk.transforms "Runs on-demand transformations with"
        feast.sdk.core -> feast.sdk.permissions "Checks permissions of objects with"
        feast.sdk.compute -> feast.sdk.offline "Pulls the latest rows from"
        feast.sdk.compute -> feast.sdk.online "Writes batches to"
        feast.sdk.offline -> feast.sdk.types "Maps source column types with"
        feast.sdk.online -> feast.sdk.types "Converts values with"
        feast.sdk.offline -> warehouse "Queries" "SQL, files"
        feast.sdk.online -> kvstores "Reads and writes" "native clients"
        feast.sdk.registry -> metastore "Persists the registry in"
        feast.sdk.registry -> feast.protos "Serializes objects as"
        feast.sdk.registry -> feast.servers.registryserver "Calls when the registry type is remote" "gRPC"
        feast.sdk.online -> feast.servers.featureserver "Calls when the online store type is remote" "HTTP"
        feast.sdk.offline -> feast.servers.offlineserver "Calls when the offline store type is remote" "Arrow Flight"
        feast.sdk.permissions -> idp "Validates tokens with" "OIDC, TokenReview"
        feast.sdk.monitoring -> feast.sdk.offline "Queries max event timestamps from"
        feast.sdk.core -> lineagesink "Emits lineage events to" "OpenLineage, MLflow"
        feast.servers.featureserver -> feast.sdk.core "Wraps a FeatureStore from"
        feast.servers.featureserver -> feast.sdk.permissions "Authorizes requests with"
        feast.servers.featureserver -> feast.sdk.monitoring "Exposes metrics from"
        feast.servers.offlineserver -> feast.sdk.offline "Runs retrieval jobs in"
        feast.servers.offlineserver -> feast.sdk.permissions "Authorizes requests with"
        feast.servers.registryserver -> feast.sdk.registry "Serves the contents of"
        feast.servers.registryserver -> feast.sdk.permissions "Filters objects with"
        feast.ui -> feast.servers.registryserver "Reads objects through the REST API of" "HTTP, JSON"
        feast.goserver -> kvstores "Reads the latest values from"
        feast.goserver -> feast.protos "Reads the registry and serves the API defined in"
        feast.operator -> k8s "Creates workloads and RBAC in" "Kubernetes API"
        feast.operator -> feast.servers "Deploys and configures"
        feast.operator -> feast.goserver "Can deploy"
        feast.charts -> feast.servers "Packages"
        feast.tests -> feast.sdk "Exercises"
    }

    views {
        systemContext feast {
            include *
            autolayout lr
        }
        container feast {
            include *
            autolayout lr
        }
    }
}

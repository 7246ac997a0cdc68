workspace "CHAP" "Climate & Health Modelling Platform (chap-core): runs, evaluates and serves disease forecasting models for DHIS2." {

    !identifiers hierarchical

    model {
        analyst = person "Health Analyst" "Public-health staff who prepare data, run backtests and predictions from DHIS2."
        modeller = person "Model Developer" "Researcher who writes forecasting models and evaluates them locally."

        dhis2 = softwareSystem "DHIS2" "Health information system that holds the routine disease and climate data; hosts the Modeling App and proxies requests to CHAP." "External"
        modelingApp = softwareSystem "CHAP Modeling App" "DHIS2 web app (separate chap-frontend repository) for configuring models, running backtests and viewing forecasts." "External"
        chapkitServices = softwareSystem "Chapkit Model Services" "Model services built with chapkit that register with CHAP and train/predict over HTTP." "External"
        modelRepos = softwareSystem "Model Source Repositories" "Git repositories (e.g. GitHub) holding MLproject-described model code that CHAP clones and runs." "External"

        chap = softwareSystem "CHAP Core" "Platform that harmonises health and climate data, trains and evaluates forecasting models and serves predictions." {

            api = container "REST API" "FastAPI application serving versioned HTTP endpoints for datasets, models, backtests, predictions and the model-service registry; queues long-running jobs." "Python, FastAPI, gunicorn/uvicorn" {
                v1 = component "v1 API" "CRUD, analytics, jobs and visualization routers used by the Modeling App." "FastAPI routers"
                v2 = component "Service Registry API" "Endpoints where chapkit model services register and ping, and a proxy towards them." "FastAPI routers"
                orchestrator = component "Orchestrator" "Keeps the registry of live model services with TTL keys and syncs their templates to the database." "Python"
            }

            worker = container "Job Worker" "Celery worker that runs queued jobs: data harmonisation, training, prediction and backtests, writing results to the database." "Python, Celery (R/INLA-enabled image)"

            cli = container "chap CLI" "Command line tool for evaluating models, forecasting, validating data, explaining and reporting." "Python, cyclopts"

            engine = container "Modelling Engine" "Core library: spatio-temporal data model, model templates and runners, evaluation and plotting used by the API, worker and CLI." "Python library" {
                data = component "Data Model" "Spatio-temporal datasets, time periods, data types, geometry, file loading, climate data and feature generation." "Python"
                models = component "Model Templates" "Model templates and configurations, external (MLproject, chapkit, web) model wrappers and adaptors for model authors." "Python"
                runners = component "Runners" "Train/predict runners for Docker, uv, conda, renv, MLflow and plain command line environments." "Python"
                predictors = component "Built-in Predictors" "Naive and simple statistical predictors, model registry and simulators." "Python"
                assessment = component "Assessment" "Backtesting, dataset splitting, forecast evaluation, metrics, thresholds and backtest plots." "Python"
                plotting = component "Plotting" "Dataset, prediction and evaluation charts." "Python, Altair, matplotlib"
                explainability = component "Explainability" "LIME-style explanations of model forecasts." "Python"
                hpo = component "Hyperparameter Optimisation" "Search over model configuration spaces." "Python, Optuna"
                preferenceLearning = component "Preference Learning" "Learns which models a decision maker prefers from pairwise comparisons." "Python"
            }

            database = container "Database" "Stores datasets and observations, model templates and configured models, backtests, forecasts, metrics and predictions." "PostgreSQL, SQLModel, Alembic" "Database"

            broker = container "Message Broker" "Celery broker, job status store and model-service registry." "Redis / Valkey" "Database"

            exampleModels = container "Bundled Example Models" "Example and reference models (R and Python, MLproject) that CHAP can run and uses in tests and tutorials." "R, Python, MLproject"
        }

        analyst -> dhis2 "Uses"
        dhis2 -> modelingApp "Hosts"
        modelingApp -> dhis2 "Calls CHAP through the DHIS2 route" "HTTPS"
        dhis2 -> chap.api "Proxies requests" "HTTPS/JSON"
        modelingApp -> chap.api.v1 "Creates backtests and predictions, polls jobs" "HTTPS/JSON"
        modeller -> chap.cli "Evaluates and runs models"
        chap.api -> chap.database "Reads and writes" "SQL"
        chap.api -> chap.broker "Queues jobs, reads job status" "Redis"
        chap.api.v1 -> chap.database "Reads and writes" "SQL"
        chap.api.v1 -> chap.broker "Queues jobs" "Redis"
        chap.api.v2 -> chap.api.orchestrator "Registers and pings services"
        chap.api.orchestrator -> chap.broker "Stores registrations with TTL" "Redis"
        chap.api.orchestrator -> chap.database "Syncs model templates" "SQL"
        chap.api -> chap.engine "Uses"
        chap.worker -> chap.broker "Consumes jobs" "Redis"
        chap.worker -> chap.database "Reads datasets, writes results" "SQL"
        chap.worker -> chap.engine "Runs training, prediction and backtests"
        chap.worker -> chap.api.orchestrator "Resolves live service URLs"
        chap.cli -> chap.engine "Uses"
        chap.engine.assessment -> chap.engine.models "Trains and predicts with"
        chap.engine.assessment -> chap.engine.data "Splits and evaluates"
        chap.engine.models -> chap.engine.runners "Runs models with"
        chap.engine.models -> chap.engine.data "Reads and writes datasets"
        chap.engine.explainability -> chap.engine.models "Perturbs inputs of"
        chap.engine.hpo -> chap.engine.assessment "Scores configurations with"
        chap.engine.plotting -> chap.engine.data "Plots"
        chap.engine.runners -> modelRepos "Clones and runs model code" "git"
        chap.engine.runners -> chap.exampleModels "Runs"
        chap.engine.models -> chapkitServices "Trains and predicts" "HTTP"
        chapkitServices -> chap.api.v2 "Registers, pings" "HTTP"
    }

    views {
        systemContext chap "Context" {
            include *
            autolayout lr
        }
        container chap "Containers" {
            include *
            autolayout lr
        }
        component chap.engine "Engine" {
            include *
            autolayout lr
        }
        component chap.api "Api" {
            include *
            autolayout lr
        }
    }
}

"""Generated repositories for the conformance tests: one shop, the same model and the
same dependencies, written in each language archmem reads imports of.

orders.api → orders.service → payments.api → payments.internal → audit → orders.api,
and orders.service → payments.internal (not in the model); every file also imports a
third-party package, which must never become an element dependency.
"""

from __future__ import annotations

MODEL = """\
workspace "Shop" {{
    !identifiers hierarchical
    model {{
        customer = person "Customer"
        shop = softwareSystem "Shop" {{
            orders = container "Orders" {{
                api = component "OrderApi" {{
                    properties {{
                        "archmem.paths" "{root}orders/api/**"
                    }}
                }}
                service = component "OrderService" {{
                    properties {{
                        "archmem.paths" "{root}orders/service/**"
                    }}
                }}
            }}
            payments = container "Payments" {{
                papi = component "PaymentApi" {{
                    properties {{
                        "archmem.paths" "{root}payments/api/**"
                    }}
                }}
                internal = component "PaymentInternal" {{
                    properties {{
                        "archmem.paths" "{root}payments/internal/**"
                    }}
                }}
            }}
            audit = container "Audit" {{
                properties {{
                    "archmem.paths" "{root}audit/**"
                }}
            }}
            notifications = container "Notifications" {{
                properties {{
                    "archmem.paths" "{root}notifications/**"
                }}
            }}
        }}
        customer -> shop.orders.api "Places orders with"
        shop.orders.api -> shop.orders.service "Calls"
        shop.orders.service -> shop.payments.papi "Charges through"
        shop.payments.papi -> shop.payments.internal "Records with"
        shop.payments -> shop.audit "Audits with"
        shop.orders -> shop.notifications "Publishes order events to"
    }}
}}
"""

UNDECLARED_MARK = "ledger-undeclared"
"""Text on the line of orders.service's import of payments.internal."""


def python() -> dict[str, str]:
    return {
        "orders/__init__.py": "", "orders/api/__init__.py": "", "orders/service/__init__.py": "",
        "payments/__init__.py": "", "payments/api/__init__.py": "", "payments/internal/__init__.py": "",
        "audit/__init__.py": "", "notifications/__init__.py": "",
        "orders/api/handlers.py": "import requests\n\nfrom orders.service.checkout import checkout\n",
        "orders/service/checkout.py": (
            '"""Checkout."""\nimport os\n\nfrom payments.api import client\n'
            f"from payments.internal.ledger import record  # {UNDECLARED_MARK}\n\n\ndef checkout():\n    return client\n"
        ),
        "payments/api/client.py": "import stripe\nfrom ..internal import ledger\n",
        "payments/internal/ledger.py": "from audit.log import write\n",
        "audit/log.py": "import json\n\n\ndef write():\n    from orders.api import handlers\n",
        "notifications/mailer.py": "import smtplib\n",
    }


def typescript() -> dict[str, str]:
    return {
        "tsconfig.json": (
            '{\n  // aliases for the shop\'s containers\n  "compilerOptions": {\n    "baseUrl": ".",\n'
            '    "paths": { "@payments/*": ["payments/*"], },\n  },\n}\n'
        ),
        "orders/api/handlers.ts": 'import express from "express";\nimport { checkout } from "../service/checkout";\n',
        "orders/service/checkout.ts": (
            "// checkout\nimport { v4 } from 'uuid';\nimport { charge } from '@payments/api';\n"
            f"import {{ record }} from '@payments/internal/ledger'; // {UNDECLARED_MARK}\n"
        ),
        "payments/api/index.ts": 'import Stripe from "stripe";\nexport * from "../internal/ledger.js";\n',
        "payments/internal/ledger.ts": 'import { write } from "../../audit/log";\n',
        "audit/log.ts": 'export async function write() {\n  const h = await import("../orders/api/handlers");\n}\n',
        "notifications/mailer.ts": 'import nodemailer from "nodemailer";\n',
    }


def go() -> dict[str, str]:
    return {
        "go.mod": "module example.com/shop\n\ngo 1.22\n\nrequire github.com/google/uuid v1.6.0\n",
        "orders/api/handlers.go": 'package api\n\nimport (\n\t"net/http"\n\n\t"example.com/shop/orders/service"\n)\n',
        "orders/service/checkout.go": (
            'package service\n\nimport (\n\t"github.com/google/uuid"\n\tpapi "example.com/shop/payments/api"\n'
            f'\t"example.com/shop/payments/internal" // {UNDECLARED_MARK}\n)\n'
        ),
        "payments/api/client.go": 'package api\n\nimport "example.com/shop/payments/internal"\n',
        "payments/internal/ledger.go": 'package internal\n\nimport "example.com/shop/audit"\n',
        "audit/log.go": 'package audit\n\nimport (\n\t"fmt"\n\t"example.com/shop/orders/api"\n)\n',
        "notifications/mailer.go": 'package notifications\n\nimport "net/smtp"\n',
    }


def java() -> dict[str, str]:
    root = "src/main/java/com/shop/"
    return {
        root + "orders/api/Handlers.java": (
            "package com.shop.orders.api;\n\nimport org.springframework.web.bind.annotation.RestController;\n"
            "import com.shop.orders.service.Checkout;\n"
        ),
        root + "orders/service/Checkout.java": (
            "package com.shop.orders.service;\n\nimport java.util.UUID;\nimport com.shop.payments.api.*;\n"
            f"import com.shop.payments.internal.Ledger; // {UNDECLARED_MARK}\n"
        ),
        root + "payments/api/Client.java": "package com.shop.payments.api;\n\nimport static com.shop.payments.internal.Ledger.record;\n",
        root + "payments/internal/Ledger.java": "package com.shop.payments.internal;\n\nimport com.shop.audit.Log;\n",
        root + "audit/Log.java": "package com.shop.audit;\n\nimport com.shop.orders.api.Handlers;\n",
        root + "notifications/Mailer.java": "package com.shop.notifications;\n\nimport javax.mail.Session;\n",
    }


def csharp() -> dict[str, str]:
    return {
        "orders/api/Handlers.cs": "using Microsoft.AspNetCore.Mvc;\nusing Shop.Orders.Service;\n\nnamespace Shop.Orders.Api;\n",
        "orders/service/Checkout.cs": (
            "using System;\nusing Shop.Payments.Api;\n"
            f"using Shop.Payments.Internal; // {UNDECLARED_MARK}\n\nnamespace Shop.Orders.Service\n{{\n}}\n"
        ),
        "payments/api/Client.cs": "using static Shop.Payments.Internal.Ledger;\n\nnamespace Shop.Payments.Api;\n",
        "payments/internal/Ledger.cs": "using Shop.Audit;\n\nnamespace Shop.Payments.Internal;\n",
        "audit/Log.cs": "using Shop.Orders.Api;\n\nnamespace Shop.Audit;\n",
        "notifications/Mailer.cs": "using MailKit;\n\nnamespace Shop.Notifications;\n",
    }


def kotlin() -> dict[str, str]:
    return {
        path.replace("/java/", "/kotlin/").replace(".java", ".kt"): text.replace(";\n", "\n")
        for path, text in java().items()
    }


LANGUAGES = {
    "python": ("", python),
    "typescript": ("", typescript),
    "go": ("", go),
    "java": ("src/main/java/com/shop/", java),
    "kotlin": ("src/main/kotlin/com/shop/", kotlin),
    "csharp": ("", csharp),
}


def shop(language: str) -> dict[str, str]:
    """The repository's files for one language, with its model."""
    root, files = LANGUAGES[language]
    return {"workspace.dsl": MODEL.format(root=root), **files()}

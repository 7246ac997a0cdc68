"""Reading imports: what a file states, on which line, and never text inside a comment
or a string that only looks like an import."""

from __future__ import annotations

import pytest

from archmem.conformance.scan import FileImports, extract, language_of, skeleton


def specs(language: str, text: str) -> list[tuple[str, int]]:
    return [(ref.spec, ref.line) for ref in extract(language, text).imports]


def test_python_imports_anywhere_in_the_statement_tree_with_relative_levels():
    text = (
        "import os, shop.orders\n"
        "from . import models\n"
        "from ..pricing.engine import price_cart, TAX\n"
        "def f():\n"
        "    import lazy.thing\n"
        "if TYPE_CHECKING:\n"
        "    from shop.payments import *\n"
        "x = 'import nope'\n"
    )
    found = extract("python", text)
    assert [(r.spec, r.line, r.names) for r in found.imports] == [
        ("os", 1, ()), ("shop.orders", 1, ()), (".", 2, ("models",)), ("..pricing.engine", 3, ("price_cart", "TAX")),
        ("lazy.thing", 5, ()), ("shop.payments", 7, ("*",)),
    ]


def test_python_that_does_not_parse_is_an_error_not_a_guess():
    found = extract("python", "def broken(:\n    import os\n")
    assert found.imports == [] and found.error and "line 1" in found.error


def test_typescript_forms_and_lines_without_comment_string_or_template_text():
    text = (
        'import { a } from "./a";\n'
        "import type { T } from '../types';\n"
        "// import nope from './comment'\n"
        "/* import nope from './block' */\n"
        "const s = `import nope from './template'\n"
        "import nope2 from './template2'`;\n"
        "import {\n"
        "  b,\n"
        '} from "@app/b"; import "./side-effect";\n'
        "export * from './reexport';\n"
        "const lazy = () => import('./lazy');\n"
        'const old = require("./required");\n'
        "const re = /'/; import z from './after-regex';\n"
        "const str = \"import q from './in-a-string'\";\n"
    )
    assert specs("typescript", text) == [
        ("./a", 1), ("../types", 2), ("@app/b", 9), ("./side-effect", 9), ("./reexport", 10), ("./lazy", 11),
        ("./required", 12), ("./after-regex", 13),
    ]


def test_go_single_and_block_imports_with_aliases_not_raw_strings():
    text = (
        "package main\n\n"
        'import "fmt"\n'
        "import (\n"
        '\t"strings"\n'
        '\tapi "example.com/shop/orders/api" // a comment with "quotes"\n'
        '\t_ "example.com/shop/db"\n'
        ")\n"
        "var s = `\n"
        'import "nope"\n'
        "`\n"
    )
    assert specs("go", text) == [
        ("fmt", 3), ("strings", 5), ("example.com/shop/orders/api", 6), ("example.com/shop/db", 7),
    ]


def test_java_package_imports_static_and_star_not_text_blocks():
    text = (
        "package com.shop.orders;\n"
        "import com.shop.payments.PaymentService;\n"
        "import static com.shop.util.Strings.trim;\n"
        "import com.shop.model.*;\n"
        "// import com.nope.Comment;\n"
        'String s = """\n'
        "import com.nope.TextBlock;\n"
        '""";\n'
    )
    found = extract("java", text)
    assert found.declares == ["com.shop.orders"]
    assert [(r.spec, r.line, r.static) for r in found.imports] == [
        ("com.shop.payments.PaymentService", 2, False), ("com.shop.util.Strings.trim", 3, True),
        ("com.shop.model.*", 4, False),
    ]


def test_kotlin_aliases_and_backticks():
    found = extract("kotlin", "package com.shop.orders\n\nimport com.shop.payments.PaymentService as PS\n"
                              "import com.shop.util.`fun`\n")
    assert found.declares == ["com.shop.orders"]
    assert [(r.spec, r.line) for r in found.imports] == [("com.shop.payments.PaymentService", 3),
                                                          ("com.shop.util.fun", 4)]


def test_csharp_usings_namespaces_and_not_using_statements_or_verbatim_strings():
    text = (
        "using System;\n"
        "global using Shop.Payments;\n"
        "using static Shop.Util.Strings;\n"
        "using Client = Shop.Payments.Http.Client;\n"
        "namespace Shop.Orders;\n"
        "class A { void F() { using var x = new Foo(); using (var y = Z()) {} var s = @\"using Nope;\n"
        "\"; } }\n"
    )
    found = extract("csharp", text)
    assert found.declares == ["Shop.Orders"]
    assert [(r.spec, r.line, r.static) for r in found.imports] == [
        ("System", 1, False), ("Shop.Payments", 2, False), ("Shop.Util.Strings", 3, True),
        ("Shop.Payments.Http.Client", 4, True),
    ]


def test_a_byte_order_mark_does_not_hide_the_first_line():
    found = extract("csharp", "\ufeffnamespace Shop.Orders;\nusing Shop.Payments;\n")
    assert found.declares == ["Shop.Orders"] and [(r.spec, r.line) for r in found.imports] == [("Shop.Payments", 2)]


def test_the_skeleton_keeps_every_newline_so_lines_stay_exact():
    text = "a /* one\ntwo */ b `x\ny` \"plain\" 'it\\'s'\n"
    out = skeleton(text, "js")
    assert out.count("\n") == text.count("\n") and len(out) == len(text)
    assert '"plain"' in out and "two" not in out and "it" not in out


@pytest.mark.parametrize(("path", "language"), [
    ("a/b.py", "python"), ("x.d.ts", "typescript"), ("c.tsx", "typescript"), ("m.mjs", "javascript"),
    ("g.go", "go"), ("J.java", "java"), ("K.kt", "kotlin"), ("C.cs", "csharp"), ("README.md", None),
])
def test_languages_by_extension(path: str, language: str | None):
    assert language_of(path) == language


def test_extraction_round_trips_through_its_cached_form():
    found = extract("java", "package a.b;\nimport static a.b.C.d;\n")
    assert FileImports.from_json(found.to_json()) == found


def test_a_file_of_many_statements_that_look_like_an_import_start_stays_linear():
    """``export const …`` lines without semicolons once took 92 s for 20,000 lines."""
    import time

    text = "".join(f"export const a{i} = b{i}\n" for i in range(20_000)) + 'export { x } from "./x"\n'
    start = time.perf_counter()
    assert specs("typescript", text) == [("./x", 20_001)]
    assert time.perf_counter() - start < 5

"""The config schema page: every field of the pydantic models in simulator/config.py (its unit and
meaning, its type, the range the validator allows and why) beside MTIA 2i's value and the reason its
YAML file gives for that value, then the presets in configs/ and what each says it is."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel

from simulator.config import CONFIG_DIR, DEFAULT_CONFIG, DPE_DTYPES, UNIT_BOUNDS, VECTOR_DTYPES, Config, load_config

# the dict fields' keys (simulator/config.py checks them by these lists)
DICT_KEYS = {"macs_per_cycle": DPE_DTYPES, "ops_per_cycle": VECTOR_DTYPES}

KEY_LINE = re.compile(r"^(?P<indent> *)(?P<key>[\w.-]+):(?P<value>[^#]*?)\s*(?:#\s?(?P<comment>.*))?$")
COMMENT_LINE = re.compile(r"^(?P<indent> *)#\s?(?P<comment>.*)$")


def yaml_reasons(path: Path) -> dict[str, str]:
    """{dotted key: the comment beside its value}, a comment continued on the lines below at the same
    column included (the configs' convention: each value's unit and source or reason)."""
    reasons: dict[str, str] = {}
    stack: list[tuple[int, str]] = []          # (indent, key) of the sections the current line is in
    last, column = None, -1
    for line in path.read_text().splitlines():
        m = KEY_LINE.match(line)
        if m:
            indent = len(m["indent"])
            while stack and stack[-1][0] >= indent:
                stack.pop()
            dotted = ".".join([k for _, k in stack] + [m["key"]])
            if not m["value"]:
                stack.append((indent, m["key"]))
            last, column = None, -1
            if m["comment"] is not None:
                last, column = dotted, line.index("#")
                reasons[dotted] = m["comment"].strip()
            continue
        c = COMMENT_LINE.match(line)
        if c and last is not None and len(c["indent"]) == column:
            head = reasons[last]
            glue = "" if head.endswith("-") and not head.endswith(" -") else " "    # "auto-" + "increment"
            reasons[last] = head + glue + c["comment"].strip()
        else:
            last, column = None, -1
    return reasons


def _section(annotation: Any):
    """The model of a section field (seen through `| None`), or None for a value field."""
    for a in (annotation, *getattr(annotation, "__args__", ())):
        if isinstance(a, type) and issubclass(a, BaseModel):
            return a
    return None


def _type(annotation: Any) -> str:
    if get_origin(annotation) is Literal:
        return "one of " + ", ".join(f"`{a}`" for a in get_args(annotation))
    if get_origin(annotation) is not None:              # dict[str, int]
        return str(annotation).replace("typing.", "")
    return getattr(annotation, "__name__", str(annotation))


def _allowed(name: str, info) -> str:
    """The range the validator allows: the field's own bounds, tightened by the bounds every field of its
    unit has (`UNIT_BOUNDS`), with the reason of whichever bound decides."""
    low = high = None                          # (value, symbol)
    for m in info.metadata:
        for attr, sym in (("gt", ">"), ("ge", ">=")):
            if getattr(m, attr, None) is not None:
                low = (getattr(m, attr), sym)
        for attr, sym in (("lt", "<"), ("le", "<=")):
            if getattr(m, attr, None) is not None:
                high = (getattr(m, attr), sym)
    if name in DICT_KEYS:
        return f"keys: {', '.join(DICT_KEYS[name])}; each value >= 1"
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    why = extra.get("why")
    for suffix, lo, hi, reason in UNIT_BOUNDS:
        if name == suffix or name.endswith("_" + suffix):
            if low is None or lo > low[0]:
                low, why = (lo, ">="), reason
            if high is None or hi < high[0]:
                high, why = (hi, "<="), reason
    parts = [f"{sym} {_number(v)}" for v, sym in filter(None, (low, high))]
    text = ", ".join(parts)
    return f"{text} ({why})" if why and text else text


def _number(v) -> str:
    return f"{v:,}" if isinstance(v, int) else f"{v:g}"


def _cell(value: Any) -> str:
    text = str(value).replace("|", "\\|").replace("\n", " ")
    return text


def _value(cfg: Config, dotted: str) -> str:
    v: Any = cfg.model_dump()
    for part in dotted.split("."):
        if not isinstance(v, dict) or part not in v:
            return ""
        v = v[part]
    if isinstance(v, dict):
        return ", ".join(f"{k}: {x}" for k, x in v.items())
    return "" if v is None else f"`{v}`"


def _tables(model: type[BaseModel], prefix: str, default: Config, reasons: dict, out: list[str],
            about: str = "") -> None:
    rows, sections = [], []
    for name, info in model.model_fields.items():
        dotted = prefix + name
        sub = _section(info.annotation)
        if sub is not None:
            sections.append((dotted, sub, info))
            continue
        reason = reasons.get(dotted) or "; ".join(f"{k.rpartition('.')[2]}: {v}" for k, v in reasons.items()
                                                   if k.startswith(dotted + "."))
        rows.append(f"| `{dotted}` | {_cell(_type(info.annotation))} | {_cell(info.description or '')} | "
                    f"{_cell(_allowed(name, info))} | {_value(default, dotted)} | {_cell(reason)} |")
    if rows:
        title = f"`{prefix.rstrip('.')}`" if prefix else "Top level"
        doc = (model.__doc__ or "").strip() if model.__doc__ != BaseModel.__doc__ else ""
        out += [f"## {title}", ""]
        for text in (about, doc if not doc.startswith(model.__name__ + "(") else ""):
            if text:
                out += [" ".join(text.split()), ""]
        out += [f"| key | type | meaning (unit) | allowed | {default.name} | why this value |",
                "|---|---|---|---|---|---|", *rows, ""]
    for dotted, sub, info in sections:
        _tables(sub, dotted + ".", default, reasons, out, info.description or "")


def _header(path: Path) -> str:
    """The comment paragraph a config file opens with."""
    lines = []
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return " ".join(lines)


def page() -> str:
    default = load_config(DEFAULT_CONFIG)
    reasons = yaml_reasons(CONFIG_DIR / f"{DEFAULT_CONFIG}.yaml")
    out = ["# Config schema", "",
           "<!-- generated by docs/gen/gen_config.py from simulator/config.py and configs/: edit those -->", "",
           "A hardware config is a YAML file of the keys below (`configs/*.yaml`, or any path given to "
           "`--config` or `simulator.use_config`). A preset may name a base with `extends:` and set only what "
           "differs; `--set KEY=VALUE` and a sweep's grid override keys by their dotted names. Units are in the "
           "key names (`_gbps`, `_ns`, `_cycles`, `_kib`). A value outside its allowed range is refused with the "
           "key, the range and its reason. The last two columns are the default config's value and the reason "
           f"its file (`configs/{DEFAULT_CONFIG}.yaml`) gives for it.", "",
           "## The presets", "",
           "| config | what it is |", "|---|---|"]
    for path in sorted(CONFIG_DIR.glob("*.yaml")):
        out.append(f"| `{path.stem}` | {_cell(_header(path))} |")
    out.append("")
    _tables(Config, "", default, reasons, out)
    return "\n".join(out) + "\n"

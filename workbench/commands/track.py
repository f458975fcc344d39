"""``harmwatch track``: observe texts from named sources, and read, verify and export their chains.

The commands read input, call the engine and the store inside one transaction
each, and render; every rule (source_id, trend, risk, the chain) lives in
``store``. Source ids and texts are shown through ``visible`` because either
may carry characters that would rewrite what the analyst sees.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from engine import Classification, Settings, build_classifier, load_taxonomy
from store import (
    Observation,
    SourceProfile,
    TrackingRules,
    VerifyResult,
    all_source_ids,
    append,
    count_profiles,
    export_chain,
    get_profile,
    latest_observations,
    list_profiles,
    validate_source_id,
    verify_jsonl,
    verify_source,
)
from store.tracking import MAX_LIMIT
from workbench.commands.db import opened_store, store_errors
from workbench.options import ContextOption, JsonFlag, LanguageOption, settings_of
from workbench.output import console, report_table, visible, write_json
from workbench.text_input import STDIO, read_text

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

EXIT_BROKEN = 1
TEXT_CHARS = 60
RISK_STYLES = {"critical": "bold red", "elevated": "red", "watch": "yellow", "low": "green"}
TREND_MARKS = {"escalating": "↑ escalating", "de-escalating": "↓ de-escalating", "stable": "stable"}

SourceArgument = Annotated[
    str,
    typer.Argument(
        metavar="SOURCE",
        show_default=False,
        help="The source's id: 1–200 characters, no whitespace, no '/', no control characters.",
    ),
]
TextArgument = Annotated[
    str | None,
    typer.Argument(
        metavar="TEXT",
        show_default=False,
        help="The text the source published; '-' or nothing reads it from stdin.",
    ),
]


def _limit_option(default_help: str) -> Any:
    return typer.Option("--limit", "-n", min=1, max=MAX_LIMIT, help=default_help)


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        name="track",
        help="Track named sources over time in tamper-evident hash chains.",
        no_args_is_help=True,
    )
    group.command("observe")(observe)
    group.command("show")(show)
    group.command("list")(list_command)
    group.command("verify")(verify)
    group.command("export")(export)
    app.add_typer(group, name="track")


# -- observe ----------------------------------------------------------------------------


def observe(
    ctx: typer.Context,
    source: SourceArgument,
    text: TextArgument = None,
    language: LanguageOption = None,
    context: ContextOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Classify a text a source published and append it to the source's chain.

    The observation and the source's updated profile (severity, rolling average, trend,
    risk) are written in one transaction. With HARMWATCH_STORE_TEXT=false only the
    text's hash is kept.
    """
    settings = settings_of(ctx)
    with store_errors():
        validate_source_id(source)
    # The database first (it fails fast), then the classifier (it takes seconds to
    # build), then stdin: nobody should type a text for a store that is not there.
    with opened_store(settings) as store:
        classifier = build_classifier(settings)
        rules = TrackingRules.from_taxonomy(classifier.root, settings)
        content = read_text(text)
        result = classifier.classify(content, context=context, language=language)
        with store.transaction(write=True) as session:
            observation, profile = append(
                source,
                result,
                text=content,
                store_text=settings.store_text,
                rules=rules,
                session=session,
            )
    if as_json:
        write_json(
            {
                "observation": observation.to_dict(),
                "classification": result.to_dict(),
                "profile": profile.to_dict(),
            },
            typer.get_binary_stream("stdout"),
        )
        return
    console().print(_observed_panel(observation, result, profile, rules))


def _observed_panel(
    observation: Observation,
    result: Classification,
    profile: SourceProfile,
    rules: TrackingRules,
) -> RenderableType:
    label = rules.label(observation.harm_mechanism, observation.severity)
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="dim", no_wrap=True)
    facts.add_column(overflow="fold")
    verdict = Text("HARMFUL", "bold red") if result.is_harmful else Text("NOT HARMFUL", "green")
    facts.add_row("Decision", verdict + Text(f" · {label}"))
    facts.add_row("Rationale", Text(visible(result.decision_rationale)))
    facts.add_row("Seq", str(observation.seq))
    facts.add_row("Observed at", observation.observed_at)
    facts.add_row("Record hash", observation.record_hash)
    stored = "kept" if observation.text is not None else "not kept (hash only)"
    facts.add_row("Text", stored)
    parts: list[RenderableType] = [facts, Text(), _profile_facts(profile)]
    return Panel(
        Group(*parts),
        title=Text(f"observed {visible(observation.source_id)} · seq {observation.seq}", "bold"),
        title_align="left",
        border_style="red" if result.is_harmful else "green",
        padding=(0, 1),
    )


# -- show -------------------------------------------------------------------------------


def show(
    ctx: typer.Context,
    source: SourceArgument,
    limit: Annotated[int, _limit_option("How many of the latest observations to show.")] = 10,
    as_json: JsonFlag = False,
) -> None:
    """Show a source's profile and its latest observations, newest first."""
    settings = settings_of(ctx)
    rules = _rules(settings)
    with opened_store(settings) as store, store.transaction() as session:
        profile = get_profile(source, session=session)
        recent = latest_observations(source, session=session, limit=limit)
    if as_json:
        write_json(
            {"profile": profile.to_dict(), "observations": [o.to_dict() for o in recent]},
            typer.get_binary_stream("stdout"),
        )
        return
    out = console()
    out.print(
        Panel(
            _profile_facts(profile),
            title=Text(visible(profile.source_id), "bold"),
            title_align="left",
            border_style=RISK_STYLES.get(profile.risk_level, "white"),
            padding=(0, 1),
        )
    )
    out.print(_observations_table(recent, rules, profile.observation_count))


def _profile_facts(profile: SourceProfile) -> Table:
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="dim", no_wrap=True)
    facts.add_column(overflow="fold")
    facts.add_row("Risk", Text(profile.risk_level, RISK_STYLES.get(profile.risk_level, "")))
    facts.add_row("Current severity", Text(profile.current_severity_label, "bold"))
    facts.add_row(
        "Rolling average",
        f"{profile.rolling_average_severity:.2f} over the last "
        f"{min(profile.observation_count, profile.window)} (window {profile.window})",
    )
    facts.add_row("Trend", TREND_MARKS.get(profile.trend, profile.trend))
    facts.add_row("Observations", str(profile.observation_count))
    facts.add_row("First / last seen", f"{profile.first_observed_at} / {profile.last_observed_at}")
    facts.add_row("Head hash", profile.head_hash)
    return facts


def _observations_table(
    observations: Sequence[Observation], rules: TrackingRules, total: int
) -> Table:
    table = report_table(f"Latest {len(observations)} of {total} observations", expand=True)
    table.add_column("Seq", justify="right", no_wrap=True)
    table.add_column("Observed at", no_wrap=True)
    table.add_column("Severity", no_wrap=True)
    table.add_column("Text", ratio=1, overflow="ellipsis", no_wrap=True)
    table.add_column("Record hash", no_wrap=True)
    for observation in observations:
        if observation.text is None:
            shown = Text("(not kept)", "dim")
        else:
            shown = Text(_clip(visible(observation.text)))
        table.add_row(
            str(observation.seq),
            observation.observed_at,
            rules.label(observation.harm_mechanism, observation.severity),
            shown,
            observation.record_hash[:12] + "…",
        )
    return table


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= TEXT_CHARS else flat[: TEXT_CHARS - 1] + "…"


# -- list -------------------------------------------------------------------------------


def list_command(
    ctx: typer.Context,
    risk: Annotated[
        str | None,
        typer.Option(
            "--risk",
            metavar="LEVEL",
            show_default=False,
            help="Only sources at this risk level (low, watch, elevated, critical).",
        ),
    ] = None,
    limit: Annotated[int, _limit_option("Sources per page.")] = 50,
    offset: Annotated[int, typer.Option("--offset", min=0, help="Sources to skip.")] = 0,
    as_json: JsonFlag = False,
) -> None:
    """List tracked sources, riskiest first (risk, current severity, rolling average, last
    seen), from the profile table alone."""
    settings = settings_of(ctx)
    if risk is not None:
        levels = _rules(settings).risk_levels
        if risk not in levels:
            raise ValueError(f"--risk must be one of {', '.join(levels)}, not {risk!r}")
    with opened_store(settings) as store, store.transaction() as session:
        total = count_profiles(session=session, risk=risk)
        page = list_profiles(session=session, risk=risk, limit=limit, offset=offset)
    if as_json:
        write_json(
            {
                "total": total,
                "offset": offset,
                "limit": limit,
                "profiles": [p.to_dict() for p in page],
            },
            typer.get_binary_stream("stdout"),
        )
        return
    console().print(_profiles_table(page, total, offset))


def _profiles_table(page: Sequence[SourceProfile], total: int, offset: int) -> Table:
    shown = f"{offset + 1}–{offset + len(page)} of {total}" if page else f"none of {total}"
    table = report_table(f"Sources ({shown})", expand=True)
    table.add_column("Source", ratio=1, overflow="fold")
    table.add_column("Risk", no_wrap=True)
    table.add_column("Current severity", no_wrap=True)
    table.add_column("Avg", justify="right", no_wrap=True)
    table.add_column("Trend", no_wrap=True)
    table.add_column("Obs", justify="right", no_wrap=True)
    table.add_column("Last seen", no_wrap=True)
    for profile in page:
        table.add_row(
            Text(visible(profile.source_id)),
            Text(profile.risk_level, RISK_STYLES.get(profile.risk_level, "")),
            profile.current_severity_label,
            f"{profile.rolling_average_severity:.2f}",
            TREND_MARKS.get(profile.trend, profile.trend),
            str(profile.observation_count),
            profile.last_observed_at,
        )
    return table


# -- verify -----------------------------------------------------------------------------


def verify(
    ctx: typer.Context,
    source: Annotated[
        str | None,
        typer.Argument(metavar="[SOURCE]", show_default=False, help="The source to verify."),
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="Verify every tracked source.")] = False,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file",
            "-f",
            metavar="CHAIN.jsonl",
            dir_okay=False,
            show_default=False,
            help="Verify an exported chain ('-' for stdin) without any database.",
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Re-hash chains and report the first broken link. Exit status: 0 intact, 1 broken,
    2 error.

    A stored chain must also end at its profile's head; an exported file can only be
    checked against itself, so compare its head_hash with one you trust.
    """
    given = sum((source is not None, every, file is not None))
    if given != 1:
        raise ValueError("give exactly one of SOURCE, --all or --file")
    if file is not None:
        results = [_verify_file(file)]
    else:
        settings = settings_of(ctx)
        with opened_store(settings) as store, store.transaction() as session:
            if source is not None:
                results = [verify_source(source, session=session)]
            else:
                results = [
                    verify_source(each, session=session) for each in all_source_ids(session=session)
                ]
    broken = sum(not result.intact for result in results)
    if as_json:
        payload: Any = (
            results[0].to_dict()
            if not every
            else {
                "intact": broken == 0,
                "sources": len(results),
                "broken": broken,
                "results": [r.to_dict() for r in results],
            }
        )
        write_json(payload, typer.get_binary_stream("stdout"))
    else:
        console().print(_verify_table(results))
    if broken:
        raise typer.Exit(EXIT_BROKEN)


def _verify_file(path: Path) -> VerifyResult:
    if str(path) == STDIO:
        return verify_jsonl(typer.get_binary_stream("stdin"))
    with path.open("rb") as stream:
        return verify_jsonl(stream)


def _verify_table(results: Sequence[VerifyResult]) -> RenderableType:
    if not results:
        return Text("no sources are tracked yet")
    table = report_table(expand=True)
    table.add_column("Source", ratio=1, overflow="fold")
    table.add_column("Chain", no_wrap=True)
    table.add_column("Checked", justify="right", no_wrap=True)
    table.add_column("Head hash / where it breaks", ratio=3, min_width=64, overflow="fold")
    for result in results:
        name = Text(visible(result.source_id) if result.source_id else "—")
        if result.intact:
            table.add_row(name, Text("intact", "green"), str(result.checked), result.head_hash)
        else:
            why = Text(f"seq {result.first_broken_seq}: ", "bold") + Text(
                visible(result.reason or "")
            )
            table.add_row(name, Text("BROKEN", "bold red"), str(result.checked), why)
    return table


# -- export -----------------------------------------------------------------------------


def export(
    ctx: typer.Context,
    source: SourceArgument,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE.jsonl",
            dir_okay=False,
            show_default=False,
            help="Where the chain goes (default '-', stdout).",
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Write a source's chain as JSONL: one observation per line, every field, in seq order.

    The file can be verified anywhere with `harmwatch track verify --file` or the few
    lines of Python in docs/tracking.md. With --json (and --output), a summary is printed.
    """
    settings = settings_of(ctx)
    with opened_store(settings) as store, store.transaction() as session:
        if output is None or str(output) == STDIO:
            export_chain(source, typer.get_binary_stream("stdout"), session=session)
            return
        profile = get_profile(source, session=session)
        written = _export_to_file(source, output, session)
    summary = {
        "source_id": source,
        "records": written,
        "head_hash": profile.head_hash,
        "output": str(output),
    }
    if as_json:
        write_json(summary, typer.get_binary_stream("stdout"))
    else:
        typer.echo(f"exported {written} records of {visible(source)} to {output}", err=True)


def _export_to_file(source: str, output: Path, session: Session) -> int:
    """Write beside the target and rename, so a failed export never leaves half a chain.

    The temporary file is opened like any new file (the umask applies), so the
    export ends up with the permissions the user expects.
    """
    temporary = output.with_name(f".{output.name}.{secrets.token_hex(4)}.partial")
    try:
        with temporary.open("xb") as stream:
            written = export_chain(source, stream, session=session)
        temporary.replace(output)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return written


def _rules(settings: Settings) -> TrackingRules:
    """Labels and risk levels from the taxonomy the settings name."""
    return TrackingRules.from_taxonomy(load_taxonomy(settings.taxonomy_path).root, settings)

"""``harmwatch track``: observe texts from named sources, and read, verify and export their chains.

The commands read input, call the engine and the store inside one transaction
each, and render; every rule (source_id, trend, risk, the chain) lives in
``store``. Source ids and texts are shown through ``visible`` because either
may carry characters that would rewrite what the analyst sees.
"""

from __future__ import annotations

import json
import secrets
import sys
from collections.abc import Sequence
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from engine import Classification, Settings, build_classifier, configured_taxonomy
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
from store.checkpoints import Checkpoint, CheckpointArchive, read_file, write_file
from store.evidence import InvalidEvidenceError, make_evidence
from store.reading import export_file_name, published_between
from store.redaction import forget, forget_checkpoints, redact
from store.signing import KeyRing, VerifyKey, parse_public_key
from store.tracking import MAX_LIMIT
from store.trust import Trust
from workbench.commands.db import opened_store, store_errors
from workbench.commands.track_ingest import ingest_command
from workbench.options import ContextOption, JsonFlag, LanguageOption, settings_of
from workbench.output import (
    CsvFlag,
    TsvFlag,
    console,
    listing_format,
    report_table,
    visible,
    write_json,
    write_rows,
)
from workbench.text_input import STDIO, read_text

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

EXIT_BROKEN = 1
TEXT_CHARS = 60
# A table may fold a time (2026-01-02T03:04:05.123456Z) once, after the seconds' point.
TIME_MIN = 20
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
    group.command("ingest")(ingest_command)
    group.command("show")(show)
    group.command("list")(list_command)
    group.command("verify")(verify)
    group.command("export")(export)
    group.command("checkpoint")(checkpoint)
    group.command("redact")(redact_command)
    group.command("forget")(forget_command)
    app.add_typer(group, name="track")


# -- observe ----------------------------------------------------------------------------


PublishedAtOption = Annotated[
    str | None,
    typer.Option(
        "--published-at",
        metavar="WHEN",
        show_default=False,
        help="When the source published the text: ISO-8601 with a time zone "
        "(2026-01-02T03:04:05Z); default now. Places it in the profile's timeline.",
    ),
]
UrlOption = Annotated[
    str | None,
    typer.Option(
        "--url", metavar="URL", show_default=False, help="Where it was published (http/https)."
    ),
]
MetadataOption = Annotated[
    str | None,
    typer.Option(
        "--metadata",
        metavar="JSON",
        show_default=False,
        help="A JSON object kept with the record (at most 4 KiB, nested at most 4 deep).",
    ),
]


def _metadata(value: str | None) -> dict[str, Any] | None:
    """--metadata as a JSON object; InvalidEvidenceError (one line, exit 2) otherwise."""
    if value is None:
        return None
    try:
        parsed = json.loads(value)
    except ValueError as exc:
        raise InvalidEvidenceError("metadata", f"is not valid JSON ({exc})") from None
    if not isinstance(parsed, dict):
        raise InvalidEvidenceError("metadata", "must be a JSON object")
    return parsed


def observe(
    ctx: typer.Context,
    source: SourceArgument,
    text: TextArgument = None,
    language: LanguageOption = None,
    context: ContextOption = None,
    published_at: PublishedAtOption = None,
    url: UrlOption = None,
    metadata: MetadataOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Classify a text a source published and append it to the source's chain.

    The observation and the source's updated profile (severity, rolling average, trend,
    risk) are written in one transaction. With HARMWATCH_STORE_TEXT=false only the
    text's hash is kept. An older --published-at than the source's latest is placed by
    its time in the profile (the chain stays in append order).
    """
    settings = settings_of(ctx)
    trust = Trust.from_settings(settings)  # a bad signing key fails before anything is read
    with store_errors():
        validate_source_id(source)
        evidence = make_evidence(
            published_at=published_at,
            url=url,
            metadata=_metadata(metadata),
            max_future_skew_s=settings.max_future_skew_s,
        )
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
                signer=trust.signer,
                evidence=evidence,
                taxonomy_digest=classifier.taxonomy.digest,
            )
        trust.after_commit([observation])  # committed: a due checkpoint may be saved
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
    if observation.published_at != observation.observed_at:
        facts.add_row("Published at", observation.published_at)
    if observation.url is not None:
        facts.add_row("URL", Text(visible(observation.url)))
    facts.add_row("Record hash", observation.record_hash)
    stored = "kept" if observation.text is not None else "not kept (hash only)"
    facts.add_row("Text", stored)
    parts: list[RenderableType] = [facts, Text(), _profile_facts(profile, rules)]
    return Panel(
        Group(*parts),
        title=Text(f"observed {visible(observation.source_id)} · seq {observation.seq}", "bold"),
        title_align="left",
        border_style="red" if result.is_harmful else "green",
        padding=(0, 1),
    )


# -- show -------------------------------------------------------------------------------


SinceOption = Annotated[
    str | None,
    typer.Option(
        "--since",
        metavar="WHEN",
        show_default=False,
        help="Only observations published at or after WHEN: an ISO-8601 date (2026-01-02, "
        "from its start in UTC) or date and time with a time zone (2026-01-02T03:04:05Z).",
    ),
]
UntilOption = Annotated[
    str | None,
    typer.Option(
        "--until",
        metavar="WHEN",
        show_default=False,
        help="Only observations published at or before WHEN (a date: to its end in UTC).",
    ),
]


def parse_when(option: str, value: str, *, end_of_day: bool) -> datetime:
    """An ISO-8601 date or date-time with a time zone, as an aware datetime (ValueError else).

    A bare date means the whole day in UTC; a time without a zone is refused, as
    for published_at: it cannot be placed on the timeline.
    """
    text = value.strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            clock = time.max if end_of_day else time.min
            return datetime.combine(day, clock, tzinfo=UTC)
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"{option} must be an ISO-8601 date (2026-01-02) or date and time with a time "
            f"zone (2026-01-02T03:04:05Z), not {value!r}"
        ) from None
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{option} {value!r} has no time zone: add Z or an offset such as +02:00")
    return moment


def show(
    ctx: typer.Context,
    source: SourceArgument,
    limit: Annotated[int, _limit_option("How many of the latest observations to show.")] = 10,
    since: SinceOption = None,
    until: UntilOption = None,
    as_json: JsonFlag = False,
    as_csv: CsvFlag = False,
    as_tsv: TsvFlag = False,
) -> None:
    """Show a source's profile and its latest observations, newest first.

    With --since/--until, the latest observations published in that range, by
    publication time. --csv/--tsv (TSV is the default when piped) list the observations
    alone, one row each, every hash whole.
    """
    fmt = listing_format(as_json=as_json, as_csv=as_csv, as_tsv=as_tsv)
    settings = settings_of(ctx)
    low = parse_when("--since", since, end_of_day=False) if since is not None else None
    high = parse_when("--until", until, end_of_day=True) if until is not None else None
    if low is not None and high is not None and low > high:
        raise ValueError(f"--since ({since}) is after --until ({until})")
    rules = _rules(settings)
    with opened_store(settings, read_only=True) as store, store.transaction() as session:
        profile = get_profile(source, session=session)
        if low is None and high is None:
            recent = latest_observations(source, session=session, limit=limit)
        else:
            recent = published_between(source, session=session, since=low, until=high, limit=limit)
        # The chain status beside the profile: hashes and every profile field recomputed.
        chain = verify_source(source, session=session, rules=rules)
    if fmt == "csv" or fmt == "tsv":
        write_rows(fmt, OBSERVATION_COLUMNS, (_observation_row(o, rules) for o in recent))
        return
    if fmt == "json":
        write_json(
            {
                "profile": profile.to_dict(),
                "chain": chain.to_dict(),
                "observations": [o.to_dict() for o in recent],
            },
            typer.get_binary_stream("stdout"),
        )
        return
    out = console()
    out.print(
        Panel(
            _profile_facts(profile, rules, chain),
            # The id is the first fact, where it folds: a panel title would cut a long one.
            title=Text("Source profile", "bold"),
            title_align="left",
            border_style=RISK_STYLES.get(profile.risk_level, "white"),
            padding=(0, 1),
        )
    )
    out.print(_observations_table(recent, rules, profile.observation_count))


def _profile_facts(
    profile: SourceProfile,
    rules: TrackingRules | None = None,
    chain: VerifyResult | None = None,
) -> Table:
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="dim", no_wrap=True)
    facts.add_column(overflow="fold")
    facts.add_row("Source", Text(visible(profile.source_id), "bold"))
    facts.add_row("Risk", Text(profile.risk_level, RISK_STYLES.get(profile.risk_level, "")))
    facts.add_row("Current severity", Text(profile.current_severity_label, "bold"))
    facts.add_row(
        "Rolling average",
        f"{profile.rolling_average_severity:.2f} over the last "
        f"{min(profile.observation_count, profile.window)} (window {profile.window})",
    )
    facts.add_row("Trend", TREND_MARKS.get(profile.trend, profile.trend))
    facts.add_row("Peak severity", _severity_label(profile.peak_severity, rules))
    facts.add_row("In the window", _counts_line(profile.severity_counts))
    facts.add_row("Last escalation", profile.last_escalation_at or "never")
    facts.add_row("Observations", str(profile.observation_count))
    facts.add_row(
        "First / last published", f"{profile.first_observed_at} / {profile.last_observed_at}"
    )
    facts.add_row("Head hash", profile.head_hash)
    if chain is not None:
        facts.add_row("Chain", _chain_status(chain))
    return facts


def _severity_label(severity: int, rules: TrackingRules | None) -> str:
    """``DIRECT_VIOLENCE_CALL (4)``; ``ANIMALIZATION / CRIMINALIZATION (3)`` when several
    mechanisms share the severity (a peak is a severity, not a mechanism)."""
    if severity == 0:
        return "NONE (0)"
    suffix = f" ({severity})"
    names = [
        label.removesuffix(suffix)
        for label in (rules.labels.values() if rules is not None else ())
        if label.endswith(suffix)
    ]
    return f"{' / '.join(names)}{suffix}" if names else str(severity)


def _counts_line(counts: dict[str, int]) -> str:
    """``0: 12 · 1: 0 · 2: 3 · 3: 1 · 4: 0`` (severity: observations in the window)."""
    return " · ".join(f"{severity}: {count}" for severity, count in counts.items()) or "-"


def _chain_status(result: VerifyResult) -> Text:
    if result.intact:
        return Text(f"intact ({result.checked} records verified)", "green")
    return Text(
        f"BROKEN at seq {result.first_broken_seq}: {visible(result.reason or '')}", "bold red"
    )


def _observations_table(
    observations: Sequence[Observation], rules: TrackingRules, total: int
) -> Table:
    table = report_table(f"Latest {len(observations)} of {total} observations", expand=True)
    with_url = any(observation.url is not None for observation in observations)
    # Times, labels, urls and hashes fold (whole, over several lines); only the text is cut.
    table.add_column("Seq", justify="right", no_wrap=True)
    # Publication time over observation time (the profile reads the first, the chain
    # the second): one column, so the two times fit beside the rest.
    table.add_column("Published / observed", min_width=TIME_MIN, overflow="fold")
    table.add_column("Severity", min_width=8, overflow="fold")
    # The text is what an analyst reads first: it keeps room for a redaction and its reason.
    table.add_column("Text", ratio=3, min_width=24, overflow="ellipsis", no_wrap=True)
    if with_url:
        table.add_column("URL", ratio=1, min_width=10, overflow="fold")
    table.add_column("Record hash", ratio=1, min_width=16, overflow="fold")
    for observation in observations:
        if observation.redacted is not None:
            shown = Text(_clip(redaction_label(observation.redacted)), "dim")
        elif observation.text is None:
            shown = Text("(not kept)", "dim")
        else:
            shown = Text(_clip(visible(observation.text)))
        cells: list[RenderableType] = [
            str(observation.seq),
            Text(observation.published_at) + Text("\n") + Text(observation.observed_at, "dim"),
            rules.label(observation.harm_mechanism, observation.severity),
            shown,
        ]
        if with_url:
            cells.append(Text(visible(observation.url)) if observation.url else Text("—", "dim"))
        cells.append(observation.record_hash)
        table.add_row(*cells)
    return table


OBSERVATION_COLUMNS = (
    "source_id",
    "seq",
    "observed_at",
    "published_at",
    "severity",
    "harm_mechanism",
    "label",
    "text",
    "url",
    "record_hash",
)


def _observation_row(observation: Observation, rules: TrackingRules) -> tuple[object, ...]:
    """One observation as a row: the whole text (or its redaction marker), the whole hash."""
    if observation.redacted is not None:
        text = redaction_label(observation.redacted)
    else:
        text = observation.text or ""
    return (
        observation.source_id,
        observation.seq,
        observation.observed_at,
        observation.published_at,
        observation.severity,
        observation.harm_mechanism or "",
        rules.label(observation.harm_mechanism, observation.severity),
        text,
        observation.url,
        observation.record_hash,
    )


def redaction_label(marker: dict[str, Any]) -> str:
    """What a redacted record shows where its text was: ``[redacted: <reason>]``."""
    return f"[redacted: {visible(str(marker.get('reason', '')))}]"


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
    as_csv: CsvFlag = False,
    as_tsv: TsvFlag = False,
) -> None:
    """List tracked sources, riskiest first (risk, current severity, rolling average, last
    seen), from the profile table alone. Piped, the list is tab-separated with a header."""
    fmt = listing_format(as_json=as_json, as_csv=as_csv, as_tsv=as_tsv)
    settings = settings_of(ctx)
    if risk is not None:
        levels = _rules(settings).risk_levels
        if risk not in levels:
            raise ValueError(f"--risk must be one of {', '.join(levels)}, not {risk!r}")
    with opened_store(settings, read_only=True) as store, store.transaction() as session:
        total = count_profiles(session=session, risk=risk)
        page = list_profiles(session=session, risk=risk, limit=limit, offset=offset)
    if fmt == "csv" or fmt == "tsv":
        write_rows(fmt, PROFILE_COLUMNS, (_profile_row(p) for p in page))
        return
    if fmt == "json":
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


PROFILE_COLUMNS = (
    "source_id",
    "risk_level",
    "current_severity",
    "current_severity_label",
    "rolling_average_severity",
    "trend",
    "observation_count",
    "last_observed_at",
)


def _profile_row(profile: SourceProfile) -> tuple[object, ...]:
    return (
        profile.source_id,
        profile.risk_level,
        profile.current_severity,
        profile.current_severity_label,
        f"{profile.rolling_average_severity:.4f}",
        profile.trend,
        profile.observation_count,
        profile.last_observed_at,
    )


def _profiles_table(page: Sequence[SourceProfile], total: int, offset: int) -> Table:
    shown = f"{offset + 1}–{offset + len(page)} of {total}" if page else f"none of {total}"
    table = report_table(f"Sources ({shown})", expand=True)
    # The id takes what the others leave and folds; labels and times fold too, never cut.
    table.add_column("Source", ratio=1, min_width=12, overflow="fold")
    table.add_column("Risk", no_wrap=True)
    table.add_column("Current severity", min_width=8, overflow="fold")
    table.add_column("Avg", justify="right", no_wrap=True)
    table.add_column("Trend", min_width=8, overflow="fold")
    table.add_column("Obs", justify="right", no_wrap=True)
    table.add_column("Last seen", min_width=TIME_MIN, overflow="fold")
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

CheckpointOption = Annotated[
    Path | None,
    typer.Option(
        "--checkpoint",
        metavar="FILE",
        dir_okay=False,
        show_default=False,
        help="Checkpoints (from track checkpoint) the chain must still extend; default: the "
        "latest saved in HARMWATCH_CHECKPOINT_DIR.",
    ),
]
PublicKeyOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--public-key",
        metavar="FILE",
        dir_okay=False,
        show_default=False,
        help="An Ed25519 public key (PEM or hex) whose signatures are accepted; repeat for "
        "retired keys. Every record must then be signed.",
    ),
]


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
    checkpoint_file: CheckpointOption = None,
    public_keys: PublicKeyOption = None,
    as_json: JsonFlag = False,
    as_csv: CsvFlag = False,
    as_tsv: TsvFlag = False,
) -> None:
    """Re-hash chains and report the first broken link. Exit status: 0 intact, 1 broken,
    2 error. --csv/--tsv (TSV is the default when piped) print one row per source.

    A stored chain must also end at its profile's head, and every profile field must be
    what the chain gives. With HARMWATCH_SIGNING_KEY or --public-key, every record must
    carry a valid signature; with a checkpoint, the chain must still hold the record it
    attests. An exported file is checked against itself, the keys and the checkpoints
    given.
    """
    fmt = listing_format(as_json=as_json, as_csv=as_csv, as_tsv=as_tsv)
    given = sum((source is not None, every, file is not None))
    if given != 1:
        raise ValueError("give exactly one of SOURCE, --all or --file")
    settings = settings_of(ctx)
    trust = Trust.from_settings(settings)
    keys = trust.keys(_public_keys(public_keys or []))
    checkpoints = read_file(checkpoint_file) if checkpoint_file is not None else None
    origin = str(checkpoint_file)
    if file is not None:
        for given_one in checkpoints or ():
            trust.checkpoints_for(given_one.source_id, keys, [given_one], origin=origin)
        results = [_verify_file(file, keys, checkpoints or [])]
    else:
        rules = _rules(settings)
        with opened_store(settings, read_only=True) as store, store.transaction() as session:
            if source is not None:
                results = [
                    verify_source(
                        source,
                        session=session,
                        rules=rules,
                        keys=keys,
                        checkpoints=trust.checkpoints_for(source, keys, checkpoints, origin=origin),
                    )
                ]
            else:
                by_source = _by_source(checkpoints)
                results = []
                for name in all_source_ids(session=session):
                    attested = by_source.pop(name, None) if checkpoints is not None else None
                    mine = (
                        trust.checkpoints_for(name, keys, attested, origin=origin)
                        if checkpoints is None or attested is not None
                        else []
                    )
                    results.append(
                        verify_source(
                            name, session=session, rules=rules, keys=keys, checkpoints=mine
                        )
                    )
                missing = by_source if checkpoints is not None else _archived(trust, session)
                results += [_vanished(name, found) for name, found in sorted(missing.items())]
    broken = sum(not result.intact for result in results)
    if fmt == "csv" or fmt == "tsv":
        write_rows(fmt, VERIFY_COLUMNS, (_verify_row(result) for result in results))
    elif fmt == "json":
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
    if fmt != "json" and keys is None:
        typer.echo(
            "note: signatures were not checked (no HARMWATCH_SIGNING_KEY or --public-key)",
            err=True,
        )
    if broken:
        raise typer.Exit(EXIT_BROKEN)


VERIFY_COLUMNS = ("source_id", "intact", "checked", "head_hash", "first_broken_seq", "reason")


def _verify_row(result: VerifyResult) -> tuple[object, ...]:
    return (
        result.source_id,
        result.intact,
        result.checked,
        result.head_hash,
        result.first_broken_seq,
        result.reason,
    )


def _public_keys(paths: Sequence[Path]) -> list[VerifyKey]:
    return [parse_public_key(path.read_bytes(), source=str(path)) for path in paths]


def _by_source(checkpoints: Sequence[Checkpoint] | None) -> dict[str, list[Checkpoint]]:
    grouped: dict[str, list[Checkpoint]] = {}
    for each in checkpoints or ():
        grouped.setdefault(each.source_id, []).append(each)
    return grouped


def _archived(trust: Trust, session: Session) -> dict[str, list[Checkpoint]]:
    """Sources with a saved checkpoint but no profile in the store: deleted whole."""
    archive: CheckpointArchive | None = trust.archive
    if archive is None:
        return {}
    from store import UnknownSource

    gone: dict[str, list[Checkpoint]] = {}
    for name in archive.sources():
        try:
            get_profile(name, session=session)
        except UnknownSource:
            found = archive.latest(name, trust.keys())
            if found is not None:
                gone[name] = [found[1]]
    return gone


def _vanished(source_id: str, checkpoints: Sequence[Checkpoint]) -> VerifyResult:
    latest = max(checkpoints, key=lambda each: each.seq)
    return VerifyResult(
        source_id=source_id,
        intact=False,
        checked=0,
        head_hash="0" * 64,
        first_broken_seq=1,
        reason=f"the source is not in the store, but {latest.describe()} attests "
        f"{latest.seq} records: the source was deleted",
    )


def _verify_file(path: Path, keys: KeyRing | None, checkpoints: list[Checkpoint]) -> VerifyResult:
    if str(path) == STDIO:
        return verify_jsonl(typer.get_binary_stream("stdin"), keys=keys, checkpoints=checkpoints)
    with path.open("rb") as stream:
        return verify_jsonl(stream, keys=keys, checkpoints=checkpoints)


def _verify_table(results: Sequence[VerifyResult]) -> RenderableType:
    if not results:
        return Text("no sources are tracked yet")
    table = report_table(expand=True)
    table.add_column("Source", ratio=1, min_width=12, overflow="fold")
    table.add_column("Chain", no_wrap=True)
    table.add_column("Checked", justify="right", no_wrap=True)
    table.add_column("Head hash / where it breaks", ratio=3, min_width=16, overflow="fold")
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
    source: Annotated[
        str | None,
        typer.Argument(metavar="[SOURCE]", show_default=False, help="The source to export."),
    ] = None,
    every: Annotated[
        bool, typer.Option("--all", help="Every source, one file each, into --output DIR.")
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE.jsonl|DIR",
            show_default=False,
            help="Where the chain goes (default '-', stdout); with --all, a directory "
            "(created if need be) that receives one <source>-<hash>.jsonl per source.",
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Write a source's chain as JSONL: one observation per line, every field, in seq order.

    A redacted record keeps its hashes and says `redacted: {at, reason}`; its text, url
    and metadata are gone. The file can be verified anywhere with `harmwatch track verify
    --file` or the few lines of Python in docs/tracking.md. With --json (and --output), a
    summary is printed.
    """
    if (source is not None) == every:
        raise ValueError("give exactly one of SOURCE or --all")
    settings = settings_of(ctx)
    if every:
        if output is None or str(output) == STDIO:
            raise ValueError("--all needs --output DIR: one file is written per source")
        if output.exists() and not output.is_dir():
            raise ValueError(f"--output {output} is not a directory")
        _export_all(settings, output, as_json)
        return
    assert source is not None
    with opened_store(settings, read_only=True) as store, store.transaction() as session:
        if output is None or str(output) == STDIO:
            export_chain(source, typer.get_binary_stream("stdout"), session=session)
            return
        if output.is_dir():
            raise ValueError(f"--output {output} is a directory; name the file to write")
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


def _export_all(settings: Settings, directory: Path, as_json: bool) -> None:
    """One file per source in ``directory``, named by ``store.reading.export_file_name``
    (safe characters of the id and a hash of it: no id can escape the directory or
    overwrite another's file), all read in one transaction: one consistent moment."""
    directory.mkdir(parents=True, exist_ok=True)
    files: list[dict[str, Any]] = []
    with opened_store(settings, read_only=True) as store, store.transaction() as session:
        for name in all_source_ids(session=session):
            profile = get_profile(name, session=session)
            target = directory / export_file_name(name)
            written = _export_to_file(name, target, session)
            files.append(
                {
                    "source_id": name,
                    "records": written,
                    "head_hash": profile.head_hash,
                    "output": str(target),
                }
            )
    if as_json:
        write_json(
            {"sources": len(files), "output": str(directory), "files": files},
            typer.get_binary_stream("stdout"),
        )
        return
    records = sum(each["records"] for each in files)
    noun = "source" if len(files) == 1 else "sources"
    typer.echo(f"exported {records} records of {len(files)} {noun} to {directory}", err=True)


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


# -- checkpoint -------------------------------------------------------------------------


def checkpoint(
    ctx: typer.Context,
    source: Annotated[
        str | None,
        typer.Argument(metavar="[SOURCE]", show_default=False, help="The source to attest."),
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="A checkpoint of every source.")] = False,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            dir_okay=False,
            show_default=False,
            help="Where the checkpoints go (default '-', stdout), one JSON object per line.",
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Sign a checkpoint of each source's head (HARMWATCH_SIGNING_KEY), one per source.

    Keep the file where the database's writers cannot reach it: `track verify --checkpoint
    FILE` then catches even a rewrite by someone who holds the key. With --json (and
    --output), a summary is printed.
    """
    if (source is not None) == every:
        raise ValueError("give exactly one of SOURCE or --all")
    settings = settings_of(ctx)
    trust = Trust.from_settings(settings)
    if trust.signer is None:
        raise ValueError(
            "checkpoints need a signing key: set HARMWATCH_SIGNING_KEY "
            "(harmwatch keys generate makes one)"
        )
    with opened_store(settings, read_only=True) as store, store.transaction() as session:
        names = [source] if source is not None else list(all_source_ids(session=session))
        issued = [trust.issue(get_profile(name, session=session)) for name in names]
    if output is None or str(output) == STDIO:
        from store.checkpoints import dumps

        stream = typer.get_binary_stream("stdout")
        for each in issued:
            stream.write(dumps(each))
        stream.flush()
        return
    written = write_file(output, issued)
    if as_json:
        write_json(
            {"checkpoints": written, "output": str(output), **(trust.describe() or {})},
            typer.get_binary_stream("stdout"),
        )
    else:
        noun = "checkpoint" if written == 1 else "checkpoints"
        typer.echo(f"wrote {written} {noun} to {output}", err=True)


# -- redact and forget ------------------------------------------------------------------


def redact_command(
    ctx: typer.Context,
    source: SourceArgument,
    seq: Annotated[
        int, typer.Argument(metavar="SEQ", min=1, show_default=False, help="The record's seq.")
    ],
    reason: Annotated[
        str,
        typer.Option(
            "--reason",
            "-r",
            metavar="REASON",
            show_default=False,
            help="Why (kept with the record): 1 to 500 characters.",
        ),
    ],
    as_json: JsonFlag = False,
) -> None:
    """Remove a record's stored text, url and metadata, keeping its hashes.

    The chain still verifies: the record keeps every hashed field and is marked
    `redacted: {at, reason}`, which verify and every export show. A record is
    redacted once; a second redaction is an error (exit 2).
    """
    settings = settings_of(ctx)
    with opened_store(settings) as store, store.transaction(write=True) as session:
        observation = redact(source, seq, reason, session=session)
    if as_json:
        write_json(observation.to_dict(), typer.get_binary_stream("stdout"))
        return
    marker = observation.redacted or {}
    typer.echo(
        f"redacted seq {observation.seq} of {visible(observation.source_id)} at "
        f"{marker.get('at', '?')}: text, url and metadata removed, hashes kept"
    )


def _interactive() -> bool:
    """Whether a person can be asked (stdin is a terminal)."""
    return sys.stdin.isatty()


def forget_command(
    ctx: typer.Context,
    source: SourceArgument,
    yes: Annotated[
        bool,
        typer.Option("--yes", "-y", help="Delete without asking (needed with no terminal)."),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Delete a whole source: its observations, its profile and its saved checkpoints.

    For data-protection requests. Asks first; with no terminal to ask on, --yes is
    required. Cannot be undone: export the chain first if it must be kept.
    """
    settings = settings_of(ctx)
    trust = Trust.from_settings(settings)
    with opened_store(settings) as store:
        store.check_writable()
        with store.transaction() as session:
            count = get_profile(source, session=session).observation_count
        if not yes:
            if not _interactive():
                raise ValueError(
                    f"refusing to delete source {visible(source)!r} without confirmation: "
                    "there is no terminal to ask on; pass --yes"
                )
            noun = "observation" if count == 1 else "observations"
            if not typer.confirm(
                f"Delete source {visible(source)} and its {count} {noun}? This cannot be undone",
                default=False,
                err=True,
            ):
                typer.echo("nothing was deleted", err=True)
                raise typer.Exit(EXIT_BROKEN)
        with store.transaction(write=True) as session:
            forgotten = forget(source, session=session)
    removed = forget_checkpoints(trust.archive, source)
    result = {**forgotten.to_dict(), "deleted_checkpoints": removed}
    if as_json:
        write_json(result, typer.get_binary_stream("stdout"))
        return
    typer.echo(
        f"deleted source {visible(source)}: {forgotten.deleted_observations} observations, "
        f"its profile and {removed} saved checkpoints"
    )


def _rules(settings: Settings) -> TrackingRules:
    """Labels and risk levels from the taxonomy the settings name."""
    return TrackingRules.from_taxonomy(configured_taxonomy(settings).root, settings)

"""``harmwatch keys``: make the Ed25519 key that signs chain records and checkpoints.

The private key goes to a file only its owner can read (mode 0600, written
beside the target and renamed, so a failure never leaves half a key); the
public key is printed, for whoever will verify exported chains
(``track verify --public-key``). HARMWATCH_SIGNING_KEY then holds the file's
content.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Annotated

import typer

from workbench.options import JsonFlag
from workbench.output import write_json

PRIVATE_MODE = 0o600


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        name="keys",
        help="Signing keys for chain records and checkpoints.",
        no_args_is_help=True,
    )
    group.command("generate")(generate)
    app.add_typer(group, name="keys")


def generate(
    output: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            dir_okay=False,
            show_default=False,
            help="Where the private key (PEM, mode 0600) is written.",
        ),
    ],
    force: Annotated[
        bool, typer.Option("--force", help="Replace FILE if it exists (its key is lost).")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Generate an Ed25519 key: write the private key to FILE and print the public key and
    key id.

    Set HARMWATCH_SIGNING_KEY to the file's content (export
    HARMWATCH_SIGNING_KEY="$(cat FILE)"); give the printed public key to whoever verifies
    exported chains (harmwatch track verify --file CHAIN --public-key PUBLIC).
    """
    from store.signing import generate_ed25519

    if output.exists() and not force:
        raise ValueError(f"{output} exists: pass --force to replace it (its key is then lost)")
    pem, key = generate_ed25519()
    _write_private(output, pem)
    public_pem = key.public_pem() or ""
    if as_json:
        write_json(
            {
                "algorithm": key.algorithm,
                "key_id": key.key_id,
                "public_key": public_pem,
                "public_key_hex": key.public_hex(),
                "private_key_file": str(output),
            },
            typer.get_binary_stream("stdout"),
        )
        return
    # The public key alone on stdout (redirect it to a file to hand it out); the rest on stderr.
    typer.echo(public_pem, nl=False)
    typer.echo(f"wrote an Ed25519 private key to {output} (mode 0600)", err=True)
    typer.echo(f"key_id {key.key_id} · algorithm ed25519", err=True)
    typer.echo(
        f'use it: export HARMWATCH_SIGNING_KEY="$(cat {output})"; the public key above '
        "verifies what it signs (track verify --public-key)",
        err=True,
    )


def _write_private(output: Path, pem: bytes) -> None:
    """Create the key readable by its owner only from the first byte on, then rename it in."""
    temporary = output.with_name(f".{output.name}.{secrets.token_hex(4)}.partial")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_MODE)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            os.fchmod(stream.fileno(), PRIVATE_MODE)  # whatever the umask said
            stream.write(pem)
            stream.flush()
            os.fsync(stream.fileno())
        temporary.replace(output)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise

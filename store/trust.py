"""What every front end needs to sign appends and to verify chains, built once from the settings.

The API, the CLI and the workbench each build one ``Trust`` at their entry
point (it parses ``HARMWATCH_SIGNING_KEY``, which fails there with a message
naming the setting, never its value) and hand it to ``append`` (``signer``),
to ``verify_source`` (``keys``, ``checkpoints_for``) and, after each commit,
to ``after_commit``, which saves the checkpoints that have come due.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.settings import Settings
from store.checkpoints import Checkpoint, CheckpointArchive, CheckpointError, authenticate, issue
from store.signing import KeyRing, SigningKey, VerifyKey, signing_key_from_setting

if TYPE_CHECKING:
    from store.tracking import Observation, SourceProfile

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Trust:
    """The configured signing key (or None) and checkpoint archive (or None)."""

    signer: SigningKey | None = None
    archive: CheckpointArchive | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> Trust:
        secret = settings.signing_key
        signer = signing_key_from_setting(secret.get_secret_value() if secret else None)
        archive = None
        if settings.checkpoint_dir is not None:
            archive = CheckpointArchive(settings.checkpoint_dir, settings.checkpoint_every)
        return cls(signer, archive)

    def keys(self, extra: Iterable[VerifyKey] = ()) -> KeyRing | None:
        """The keys verification accepts: the configured one and any public keys given."""
        return KeyRing.of(self.signer, extra)

    def describe(self) -> dict[str, str] | None:
        """``{algorithm, key_id}`` for /health and reports; None without a key."""
        if self.signer is None:
            return None
        return {"algorithm": self.signer.algorithm, "key_id": self.signer.key_id}

    def issue(self, profile: SourceProfile) -> Checkpoint:
        """A checkpoint of the profile's head (ValueError without a signing key)."""
        if self.signer is None:
            raise CheckpointError(
                "checkpoints need a signing key: set HARMWATCH_SIGNING_KEY "
                "(harmwatch keys generate makes one)"
            )
        return issue(
            self.signer,
            source_id=profile.source_id,
            seq=profile.observation_count,
            head_hash=profile.head_hash,
        )

    def after_commit(self, observations: Iterable[Observation]) -> list[Path]:
        """Save a checkpoint for each committed observation whose seq is due; their paths.

        Called only after the append committed (a checkpoint of a rolled-back
        record would later read as a rewrite). A failure to write one is logged,
        not raised: the observation is already acknowledged, and failing the
        request would make its client append it twice.
        """
        archive, signer = self.archive, self.signer
        if archive is None or signer is None:
            return []
        saved: list[Path] = []
        for observation in observations:
            if not archive.due(observation.seq):
                continue
            checkpoint = issue(
                signer,
                source_id=observation.source_id,
                seq=observation.seq,
                head_hash=observation.record_hash,
            )
            try:
                saved.append(archive.save(checkpoint))
            except OSError as exc:
                log.error(
                    "could not save the checkpoint of seq %d in %s: %s",
                    observation.seq,
                    archive.directory,
                    exc.strerror or type(exc).__name__,
                )
        return saved

    def checkpoints_for(
        self,
        source_id: str,
        keys: KeyRing | None,
        given: Sequence[Checkpoint] | None = None,
        *,
        origin: str = "the checkpoints given",
    ) -> list[Checkpoint]:
        """The authenticated checkpoints a verification of ``source_id`` must honour.

        With ``given`` (a file or a request body): those of this source, each
        authenticated (CheckpointError when one is not, or when none is of this
        source). Without: the latest saved in the archive, if any.
        """
        if given is not None:
            mine = [each for each in given if each.source_id == source_id]
            if not mine:
                raise CheckpointError(
                    f"{origin} hold no checkpoint of source {source_id!r}", field="source_id"
                )
            for checkpoint in mine:
                authenticate(checkpoint, keys)
            return mine
        if self.archive is None:
            return []
        found = self.archive.latest(source_id, keys)
        if found is None:
            return []
        path, checkpoint = found
        try:
            authenticate(checkpoint, keys)
        except CheckpointError as exc:
            raise CheckpointError(f"{path}: {exc}", field=exc.field) from None
        return [checkpoint]

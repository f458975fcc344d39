"""The one settings class (SPEC section 8), built at each entry point and passed down.

It lives in the engine package because every layer needs it and the engine is
the layer that depends on nothing else; it only *describes* database and server
settings, it never opens anything.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Environment (and .env) configuration; every field documents itself."""

    # hide_input_in_errors: a validation error must never echo a value (it may be a secret).
    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", populate_by_name=True, hide_input_in_errors=True
    )

    tracking_db_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("TRACKING_DB_URL"),
        description="Database URL for tracking; wins over DATABASE_URL.",
        repr=False,  # it may carry a password; store.redact_url shows it safely
    )
    database_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("DATABASE_URL"),
        description="Fallback database URL; default is an SQLite file in the user data dir.",
        repr=False,
    )
    tracking_window: int | None = Field(
        default=None,
        ge=1,
        le=10_000,
        validation_alias=AliasChoices("TRACKING_WINDOW"),
        description="Observations in the rolling window (taxonomy default 20).",
    )
    tracking_trend_delta: float | None = Field(
        default=None,
        gt=0.0,
        le=4.0,
        validation_alias=AliasChoices("TRACKING_TREND_DELTA"),
        description="Severity difference that makes a trend (taxonomy default 0.5).",
    )
    taxonomy_path: Path | None = Field(
        default=None,
        validation_alias=AliasChoices("HARMWATCH_TAXONOMY"),
        description="Taxonomy file to load instead of the shipped taxonomy_v1.yaml.",
    )
    cache_dir: Path | None = Field(
        default=None,
        validation_alias=AliasChoices("HARMWATCH_CACHE_DIR"),
        description="Loaded-taxonomy cache (safe to delete); default the user cache directory.",
    )
    max_text_chars: int = Field(
        default=20_000,
        ge=1,
        le=1_000_000,
        validation_alias=AliasChoices("HARMWATCH_MAX_TEXT_CHARS"),
        description="Longest text (and context) accepted, in characters.",
    )
    store_text: bool = Field(
        default=True,
        validation_alias=AliasChoices("HARMWATCH_STORE_TEXT"),
        description="Keep observation texts in the store (false keeps only hashes).",
    )
    api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("HARMWATCH_API_KEY"),
        description="When set, every API route but /health and the docs needs X-API-Key.",
    )
    text_analytics_endpoint: str | None = Field(
        default=None,
        validation_alias=AliasChoices("TEXT_ANALYTICS_ENDPOINT"),
        description="Azure AI Language endpoint for optional amplification.",
    )
    text_analytics_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("TEXT_ANALYTICS_KEY"),
        description="Azure AI Language key.",
    )
    text_analytics_timeout_s: float | None = Field(
        default=None,
        gt=0.0,
        le=30.0,
        validation_alias=AliasChoices("TEXT_ANALYTICS_TIMEOUT_S"),
        description="Overall deadline for one amplification call, in seconds (taxonomy default 2).",
    )
    signing_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("HARMWATCH_SIGNING_KEY"),
        description="Signs every new chain record and checkpoint: an Ed25519 private key "
        "(PEM) or an HMAC-SHA256 secret of at least 32 bytes.",
    )
    checkpoint_dir: Path | None = Field(
        default=None,
        validation_alias=AliasChoices("HARMWATCH_CHECKPOINT_DIR"),
        description="Directory where a signed checkpoint of a source is saved every "
        "HARMWATCH_CHECKPOINT_EVERY observations; verify checks the latest one "
        "(needs HARMWATCH_SIGNING_KEY).",
    )
    checkpoint_every: int = Field(
        default=100,
        ge=1,
        le=1_000_000,
        validation_alias=AliasChoices("HARMWATCH_CHECKPOINT_EVERY"),
        description="Observations of a source between two saved checkpoints.",
    )
    max_future_skew_s: float = Field(
        default=300.0,
        ge=0.0,
        le=86_400.0,
        validation_alias=AliasChoices("HARMWATCH_MAX_FUTURE_SKEW_S"),
        description="How far in the future an observation's published_at may lie, in "
        "seconds (clocks of the publisher and of harmwatch differ a little); beyond, 422.",
    )
    body_timeout_s: float = Field(
        default=15.0,
        gt=0.0,
        le=600.0,
        validation_alias=AliasChoices("HARMWATCH_BODY_TIMEOUT_S"),
        description="Seconds a request body may take to arrive in full; then 408 and the "
        "connection is closed.",
    )
    log_text: bool = Field(
        default=False,
        validation_alias=AliasChoices("HARMWATCH_LOG_TEXT"),
        description="Log texts (default: logs carry the content hash only).",
    )

    @field_validator("text_analytics_endpoint", "tracking_db_url", "database_url")
    @classmethod
    def _blank_is_unset(cls, value: str | None) -> str | None:
        return value or None

    @field_validator("signing_key")
    @classmethod
    def _signing_key_shape(cls, value: SecretStr | None) -> SecretStr | None:
        """An HMAC secret shorter than 32 bytes is refused (a PEM key is parsed by the store).

        The message never holds the value: it is a secret.
        """
        if value is None or not value.get_secret_value():
            return None
        secret = value.get_secret_value()
        if "-----BEGIN" not in secret and len(secret.encode("utf-8", "surrogatepass")) < 32:
            raise ValueError(
                "must be an Ed25519 private key (PEM) or a secret of at least 32 bytes"
            )
        return value

    @field_validator("checkpoint_dir", mode="before")
    @classmethod
    def _blank_dir_is_unset(cls, value: object) -> object:
        return value or None

    @model_validator(mode="after")
    def _checkpoints_need_a_key(self) -> Settings:
        if self.checkpoint_dir is not None and self.signing_key is None:
            raise ValueError(
                "HARMWATCH_CHECKPOINT_DIR needs HARMWATCH_SIGNING_KEY: checkpoints are signed"
            )
        return self

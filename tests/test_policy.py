"""The policy: defaults from a TOML file, a TOML file by path, environment overrides, and impossible values rejected
at construction with the name of the field (so no check ever runs on a nonsense threshold)."""
from __future__ import annotations

import tomllib
from dataclasses import fields

import pytest

import tutor.policy as policy_mod
from tutor.errors import PolicyError
from tutor.policy import DEFAULT_POLICY_FILE, Policy, load_policy


def test_every_field_has_a_description_and_defaults_are_valid():
    described = Policy.describe()
    assert set(described) == {f.name for f in fields(Policy)}
    assert all(d.strip() for d in described.values())
    Policy()  # the dataclass defaults themselves pass validation


# ---------------------------------------------------------------- loading


def test_shipped_policy_file_names_only_known_settings_and_is_what_load_policy_returns():
    with open(DEFAULT_POLICY_FILE, "rb") as fh:
        shipped = tomllib.load(fh)
    assert set(shipped) <= {f.name for f in fields(Policy)}
    loaded = load_policy(env={})
    for name, value in shipped.items():
        assert getattr(loaded, name) == value, name


def test_defaults_are_read_from_the_default_policy_file(tmp_path, monkeypatch):
    # a stand-in for tutor/policy.toml with values no dataclass default has: load_policy must take them from the file
    fake = tmp_path / "policy.toml"
    fake.write_text("min_confidence = 0.123\ntop_k = 7\nanswerer = \"local\"\n")
    monkeypatch.setattr(policy_mod, "DEFAULT_POLICY_FILE", fake)
    p = load_policy(env={})
    assert (p.min_confidence, p.top_k, p.answerer) == (0.123, 7, "local")
    assert p.max_evidence == Policy().max_evidence  # not in the file: the dataclass default


def test_to_toml_round_trips_through_load_policy(tmp_path):
    # from the shipped policy, so its per-model tables ([models."..."]) are in the round trip too
    p = load_policy(env={}).with_values(min_confidence=0.41, require_clear_winner=True, answerer="openai", top_k=9)
    assert p.models
    path = tmp_path / "p.toml"
    path.write_text(p.to_toml())
    assert load_policy(path, env={}) == p


def test_policy_file_by_path_overrides_the_defaults(tmp_path):
    path = tmp_path / "strict.toml"
    path.write_text("top_k = 5\nmin_confidence = 0.61\n")
    p = load_policy(path, env={})
    assert (p.top_k, p.min_confidence) == (5, 0.61)


def test_policy_file_named_by_tutor_policy_env(tmp_path):
    path = tmp_path / "strict.toml"
    path.write_text("min_term_coverage = 0.55\n")
    assert load_policy(env={"TUTOR_POLICY": str(path)}).min_term_coverage == 0.55


def test_missing_policy_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(PolicyError, match="nope.toml"):
        load_policy(tmp_path / "nope.toml", env={})


def test_env_overrides_min_confidence():
    assert load_policy(env={"TUTOR_MIN_CONFIDENCE": "0.42"}).min_confidence == 0.42
    assert load_policy(env={"TUTOR_MIN_CONFIDENCE": "-0.2"}).min_confidence == -0.2


def test_env_overrides_the_policy_file(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text("min_confidence = 0.61\n")
    assert load_policy(path, env={"TUTOR_MIN_CONFIDENCE": "0.33"}).min_confidence == 0.33


@pytest.mark.parametrize("raw, expected", [("true", True), ("1", True), ("on", True), ("no", False), ("FALSE", False)])
def test_env_bool_words(raw, expected):
    assert load_policy(env={"TUTOR_REQUIRE_CLEAR_WINNER": raw}).require_clear_winner is expected


@pytest.mark.parametrize("key, raw", [("TUTOR_MIN_CONFIDENCE", "high"), ("TUTOR_TOP_K", "5.5"),
                                      ("TUTOR_REQUIRE_CLEAR_WINNER", "maybe")])
def test_env_value_that_does_not_parse_is_rejected_naming_the_variable(key, raw):
    with pytest.raises(PolicyError, match=key):
        load_policy(env={key: raw})


def test_env_value_out_of_range_is_rejected_naming_the_field():
    with pytest.raises(PolicyError, match="min_confidence"):
        load_policy(env={"TUTOR_MIN_CONFIDENCE": "2"})


# ---------------------------------------------------------------- impossible values


@pytest.mark.parametrize("name, value", [
    ("min_confidence", 2),
    ("min_confidence", -1.5),
    ("top_k", 0),
    ("top_k", 2.5),
    ("top_k", True),
    ("answerer", "gpt"),
    ("require_clear_winner", "true"),
    ("require_question_numbers", 1),
    ("min_token_overlap", 1.01),
    ("min_top_ratio", 0.9),
    ("min_confidence", "0.5"),
])
def test_impossible_value_is_rejected_with_the_fields_name(name, value):
    with pytest.raises(PolicyError, match=name):
        Policy().with_values(**{name: value})
    with pytest.raises(PolicyError, match=name):
        Policy(**{name: value})


def test_impossible_value_in_a_toml_file_is_rejected_with_the_fields_name(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('require_clear_winner = "true"\n')
    with pytest.raises(PolicyError, match="require_clear_winner"):
        load_policy(path, env={})


def test_values_on_the_bounds_are_accepted():
    p = Policy().with_values(min_confidence=-1, top_k=1, min_token_overlap=1.0, min_top_ratio=1)
    assert (p.min_confidence, p.top_k, p.min_token_overlap, p.min_top_ratio) == (-1, 1, 1.0, 1)


def test_unknown_setting_is_rejected_by_name():
    with pytest.raises(PolicyError, match="min_confidnce"):
        Policy().with_values(min_confidnce=0.5)


def test_unknown_setting_in_a_toml_file_is_rejected_by_name(tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text("min_confidnce = 0.5\n")
    with pytest.raises(PolicyError, match="min_confidnce"):
        load_policy(path, env={})


def test_policy_is_frozen():
    with pytest.raises(Exception):
        Policy().min_confidence = 0.9  # type: ignore[misc]


def test_bool_for_a_number_is_rejected():
    # bool is an int in Python: `min_confidence = true` in a TOML file must not pass as 1.0
    with pytest.raises(PolicyError, match="min_confidence"):
        Policy().with_values(min_confidence=True)


def test_nan_threshold_is_rejected():
    # every `score >= nan` is False, so a NaN threshold would silently change every decision
    with pytest.raises(PolicyError, match="min_confidence"):
        load_policy(env={"TUTOR_MIN_CONFIDENCE": "nan"})


def test_a_hinglish_reading_has_its_own_reader_threshold_where_the_policy_sets_one():
    p = Policy().with_values(min_reader_probability=0.15, min_rescue_confidence=0.35)
    same = p.for_hindi(hinglish=True)  # 0: the common threshold
    assert same.min_reader_probability == 0.15
    own = p.with_values(min_hinglish_reader_probability=0.55)
    assert own.for_hindi(hinglish=True).min_reader_probability == 0.55
    assert own.for_hindi(hinglish=False).min_reader_probability == 0.15  # a Devanagari question's reading
    with pytest.raises(PolicyError):
        p.with_values(min_hinglish_reader_probability=1.5)


def test_a_devanagari_reading_has_its_own_reader_threshold_where_the_policy_sets_one():
    p = Policy().with_values(min_reader_probability=0.15, min_hinglish_reader_probability=0.55)
    assert p.for_hindi(hinglish=False).min_reader_probability == 0.15  # 0: the common threshold
    own = p.with_values(min_devanagari_reader_probability=0.35)
    assert own.for_hindi(hinglish=False).min_reader_probability == 0.35
    assert own.for_hindi(hinglish=True).min_reader_probability == 0.55  # Hinglish keeps its own
    with pytest.raises(PolicyError):
        p.with_values(min_devanagari_reader_probability=-0.1)


def test_a_hindi_reading_reads_its_own_number_of_windows_where_the_policy_sets_one():
    p = Policy().with_values(reader_windows=3)
    assert p.for_hindi(hinglish=True).reader_windows == p.for_hindi(hinglish=False).reader_windows == 3  # 0: the same
    own = p.with_values(reading_reader_windows=1)
    assert own.for_hindi(hinglish=True).reader_windows == own.for_hindi(hinglish=False).reader_windows == 1
    assert own.reader_windows == 3  # an English question's reader reads three
    with pytest.raises(PolicyError):
        p.with_values(reading_reader_windows=-1)


def test_a_hindi_reading_is_rescued_from_a_low_confidence_refusal_only_where_the_policy_says_so():
    p = Policy().with_values(min_rescue_confidence=0.35, min_rescue_reader_probability=0.8)
    for hinglish in (True, False):
        assert p.for_hindi(hinglish).min_rescue_confidence == 1.0
        assert p.for_hindi(hinglish).with_values(min_rescue_confidence=0.35) == p
    devanagari = p.with_values(hindi_rescue=True)
    assert devanagari.for_hindi(hinglish=False).min_rescue_confidence == 0.35  # rescued as an English question is
    assert devanagari.for_hindi(hinglish=True).min_rescue_confidence == 1.0  # Hinglish has its own switch
    assert p.with_values(hinglish_rescue=True).for_hindi(hinglish=True).min_rescue_confidence == 0.35


def test_a_hindi_reading_is_rescued_for_holding_every_word_as_an_english_question_is():
    p = Policy().with_values(min_word_rescue_score=0.2, min_word_rescue_reader_probability=0.9)
    for hinglish in (True, False):  # the low-confidence rescue off for readings, this one not
        assert p.for_hindi(hinglish).min_rescue_confidence == 1.0
        assert p.for_hindi(hinglish).min_word_rescue_score == 0.2
        assert p.for_hindi(hinglish).min_word_rescue_reader_probability == 0.9

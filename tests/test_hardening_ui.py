"""Issue #11, UI security: an uploaded config.json is content, never a path.

The fuzz found that an upload whose *content* is a path (``/etc/passwd``) made the app open that
server file, and that the different messages for existing and missing paths revealed which files
exist. Here both uploads must give the same "malformed config.json" message and no file they
name may be opened or even probed.
"""
from importlib import resources

import pytest

from infersim import InferSimError
from infersim.loaders.hf_model import MAX_CONFIG_BYTES, model_from_hf_config_text

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest

APP = str(resources.files("infersim") / "ui" / "app.py")
UPLOAD = "Upload config.json…"
PRESET_JSON = resources.files("infersim") / "presets" / "models" / "llama-3.1-8b.json"


def upload(content: bytes, name: str = "config.json") -> AppTest:
    import streamlit as st

    st.cache_data.clear()
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.selectbox(key="model").set_value(UPLOAD)
    at.run()
    at.file_uploader(key="config_upload").set_value((name, content, "application/json"))
    at.run()
    assert not at.exception
    return at


def test_uploaded_path_is_parsed_as_content_and_reveals_nothing(touched, tmp_path):
    secret = tmp_path / "secret.json"              # an existing server file that IS a valid config
    secret.write_bytes(PRESET_JSON.read_bytes())
    touched.clear()
    messages = {}
    for content in (str(secret), "/etc/passwd", "/nonexistent/config.json"):
        at = upload(content.encode())
        messages[content] = [e.value for e in at.error]
    assert all(m == ["malformed config.json: Expecting value at line 1"] for m in messages.values()), messages
    for path in (str(secret), "/etc/passwd", "/nonexistent/config.json"):
        assert path not in touched


def test_uploaded_config_content_still_builds_the_model():
    at = upload(PRESET_JSON.read_bytes(), name="my-llama.json")
    assert not at.error
    assert any("my-llama" in c.value for c in at.caption)


@pytest.mark.parametrize("content, needle", [
    (b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
    (b'{"hidden_size": NaN}', "not a finite number"),
    (b'{"hidden_size": 1e400}', "not a finite number"),
    (b"\xff\xfe\x00binary", "not UTF-8"),
    (b"[1, 2]", "top level must be a JSON object"),
    (b" " * (MAX_CONFIG_BYTES + 1), "too large"),
])
def test_bad_upload_content_is_one_message(content, needle):
    at = upload(content)
    assert len(at.error) == 1 and needle in at.error[0].value
    with pytest.raises(InferSimError, match=needle):
        model_from_hf_config_text(content)

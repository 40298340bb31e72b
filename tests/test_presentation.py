"""How answer text is shown, without Streamlit (tutor.presentation)."""
from tutor import presentation as pres


def test_web_and_mail_addresses_are_never_links_unless_their_domain_is_allowed():
    shown = pres.md("Log in at http://evil.example/login, www.evil.example or write to help@evil.example")
    assert "http://" not in shown and "www." not in shown and "help@evil" not in shown
    assert shown.replace("\u2060", "").replace("\\", "") == (
        "Log in at http://evil.example/login, www.evil.example or write to help@evil.example")
    assert pres.plain_links("see https://ncert.nic.in/textbook", ("ncert.nic.in",)) == "see https://ncert.nic.in/textbook"
    assert "h\u2060ttps" in pres.plain_links("see https://ncert.nic.in.evil.example/", ("ncert.nic.in",))


def test_markdown_escaping_keeps_text_literal():
    assert pres.md("2 * 3 = 6 and $5 [1]") == "2 \\* 3 = 6 and \\$5 \\[1\\]"
    assert pres.md("- not a list") == "\\- not a list"
    assert pres.md("1. not a list") == "1\\. not a list"

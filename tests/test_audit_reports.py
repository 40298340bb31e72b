"""The teachers' page's numbers, computed without Streamlit (tutor.audit.reports)."""
import io

import pandas as pd

from tutor.audit import reports


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised():
    df = pd.DataFrame({"id": [1, 2, 3], "time": pd.to_datetime([0, 0, 0], unit="s"),
                       "question": ['=HYPERLINK("http://evil.example","click")', "+1", "What is refraction?"],
                       "answer": ["@SUM(A1)", "\tcmd", "-2+3"], "confidence": [-0.5, 0.1, 0.2]})
    csv = pd.read_csv(io.BytesIO(reports.audit_csv(df)), keep_default_na=False)
    assert csv["question"].tolist() == ["'=HYPERLINK(\"http://evil.example\",\"click\")", "'+1", "What is refraction?"]
    assert csv["answer"].tolist() == ["'@SUM(A1)", "'\tcmd", "'-2+3"]
    assert csv["confidence"].tolist() == [-0.5, 0.1, 0.2]  # numbers stay numbers

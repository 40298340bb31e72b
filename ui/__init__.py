"""The app's Streamlit layer: cached resources, page frame, drawing of answers, the reader, the password gate.

Drawing only; everything decided or computed comes from `tutor`."""

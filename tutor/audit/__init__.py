"""The audit log of every question and the reports the teachers' page draws."""

"""`python -m tutor`: the command line (tutor/cli/)."""
from tutor.cli import main

raise SystemExit(main())

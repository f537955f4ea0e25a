"""The local web view of runs (`society web`)."""

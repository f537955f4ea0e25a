"""The terminal: the live view, progress folded from the log, how each message reads
(describe), colours and safe terminal text. Imports nothing else of society/."""

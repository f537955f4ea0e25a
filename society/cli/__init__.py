"""The command line: every `society` command, thin (parse, call, print).

May import every other wing of society/; nothing imports it."""

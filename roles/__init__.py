"""The roles of the society on one shared `Role` base. Imports bus and sandbox, never society."""

"""A report's documents as code reads them: the numbers its text writes and its markdown
tables with their header rows (`tables`), the rows and columns a question names (`rows`), the
arithmetic it asks of them (`formulas`), and the scale a table gives its figures
("(in millions)", "€m") that a figure quoted or computed from it must carry (`scale`).
The researcher grounds its quotes in them; the coder gives a computed amount its scale."""

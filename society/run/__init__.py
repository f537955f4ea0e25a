"""What makes, runs and ends a run: options, the prompt set a run applies, assembly of the
roles and their collaborators, the observer, starting and leaving, resumption, outcome and
artifacts, and the worker host. May import the views, models, human, tools and tracing;
not the command line, replay, web or eval."""

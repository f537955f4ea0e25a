"""The application: the scenario model, the runner that wires bus, sandbox and roles
(`society.assembly` builds each role's typed dependencies), the CLI, the model-client
factory, the live and replay views (one `society.describe` renders every payload), the
human's terminal, and logging."""

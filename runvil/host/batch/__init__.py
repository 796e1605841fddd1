"""`runvil batch` (docs/reference/commands.md "runvil batch"): a prompt over a data set, `-j N`
rows at a time in one process, in worker processes or on a Ray cluster,
every run stored in a SQLite database as it ends, resumable.

data.py reads the rows; store.py is the database; answering.py says who
answers each row; runner.py runs rows; plan.py prepares and runs a batch;
progress.py is what the user sees; command.py is the command line;
processes.py and worker.py spread the rows over worker processes; onray.py
over a Ray cluster.
"""

from .command import batch_command

__all__ = ["batch_command"]

"""The one exception type for errors a user can cause (bad file, wrong env, bad shape, NaN).

Its message names the file or field and what was expected; the dashboard shows it as is.
"""


class ParetoscopeError(Exception):
    """A problem with the user's input that paretoscope can explain in one message."""


class ParetoscopeWarning(UserWarning):
    """Something paretoscope left out or set aside and goes on without (named in the text);
    the CLI prints it as one ``paretoscope: warning:`` line."""

"""The compiler's backend: a finished rule set turned into Python code objects.

:mod:`.program` drives it (:func:`~.program.generated`, cached on the rule set);
:mod:`.expressions` and :mod:`.statements` write the direct functions, :mod:`.resumable` the
frame machines of the callables that can stop at a roll or a decision, :mod:`.names` the
identifiers, constants and line numbers of the generated module. Nothing here runs rules: the
runtime (:mod:`hexlore.runtime.engine.compiled`) binds the code objects to its helpers.
"""

"""A game as one self-contained HTML page that steps through it (``hexlore replay``, ``run --html``).

The event log holds no positions, so a replay is made by playing the game again (same
scenario, seed and policies give the same log, byte for byte) while :mod:`.record` notes the
board after every entry; :mod:`.page` puts the board picture, the entries and those positions
into one file that needs no server and no network. Logs are not changed for it: ``hexlore
replay`` is told the scenario, seed and policies, and refuses a log the replayed game does not
write line for line.
"""

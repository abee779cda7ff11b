"""``hexlore serve``: play a scenario in the browser (issue 31).

A Starlette application on uvicorn (:mod:`.app`) serves a home page, a play page per game and a
WebSocket per open page. A game on the server is its scenario, seed, players and the answers
given (:mod:`.store`, SQLite): its position is rebuilt by replaying the answers through the
Game API (:mod:`.session`), so a server killed at any moment and started again shows every game
where it was, with the same log bytes. Every message from a page is checked against the
decision actually pending and the seat's token (:mod:`.protocol`, :mod:`.seats`).

The ASGI stack is an extra (``pip install 'hexlore[serve]'``): the CLI says so plainly when it
is missing, and nothing else in hexlore imports this package.
"""

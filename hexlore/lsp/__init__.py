"""``hexlore lsp``: a language server for Lore packs and scenario YAML (issue 17).

The server (:mod:`.server`, on pygls) only wires the protocol to small modules that know
nothing of it beyond lsprotocol's types: :mod:`.analysis` compiles what the editor shows,
:mod:`.index` finds the declaration under the cursor, :mod:`.features` answers completion,
hover, definition and outline, and :mod:`.convert` turns hexlore's diagnostics and spans into
the protocol's. pygls is an optional dependency (``pip install 'hexlore[lsp]'``): nothing but
the ``lsp`` command imports this package.
"""

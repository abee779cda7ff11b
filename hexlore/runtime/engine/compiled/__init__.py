"""The rules' generated code, made runnable: the compiler's backend
(:mod:`hexlore.compiler.backend`) makes code objects; :mod:`.program` binds them to the
helpers of :mod:`.support` and :mod:`.locate` reads a failure back to its rule."""

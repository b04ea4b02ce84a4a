"""Facts shared by codemods: which names denote SGLang's old class and which values hold the old object."""

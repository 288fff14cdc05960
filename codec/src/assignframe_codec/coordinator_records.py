CODECS = {}

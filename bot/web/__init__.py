"""The live board (issue 23): the web client's server side, its views and geometry."""

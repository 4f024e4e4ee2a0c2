package format

// Update is the -update flag, for the tests of package format_test.
var Update = update

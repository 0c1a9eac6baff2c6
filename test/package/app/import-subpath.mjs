// Run by provider-subpaths.test.ts in the app that installed the packed tarball, under the module hooks that record
// every module loaded: a fresh process imports one package subpath and prints the names it exports.
//   argv: the specifier (authchart/providers/oidc, ...)
const entry = await import(process.argv[2]);
process.stdout.write(JSON.stringify(Object.keys(entry).sort()));

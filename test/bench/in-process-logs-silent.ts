/**
 * Imported first by run.ts: the handlers the bench runs in its own process (the fixtures' create
 * calls) log nothing on the bench's output. The logger reads its level once, when its module is
 * first loaded, which an import of the fixtures does before the services start. The measured
 * functions run in processes of their own, at INFO as deployed (services.ts).
 */
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

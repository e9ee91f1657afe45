/**
 * Actions the /api/v1 route never serves, whatever their `rest`: the gateway's own actions
 * (such as `api.listAliases`) and internal `$` services. The route's blacklist and the OpenAPI
 * document both read this list, so the document lists exactly what is served.
 */
export const NOT_SERVED_OVER_HTTP: RegExp[] = [/^api\./, /^\$/];

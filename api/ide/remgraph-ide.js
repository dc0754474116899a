// remgraph's GraphiQL bootstrap: a key prompt kept in sessionStorage, the header editor
// pre-filled with `Authorization: Bearer <key>`, and GraphiQL's own state in sessionStorage too,
// so nothing about the key outlives the tab. The page itself holds no data.
(function () {
  "use strict";
  var STORE = "remgraph.apiKey";
  var DEFAULT_QUERY = [
    "# remgraph: ranked context for agents. Run it with Ctrl-Enter (or the play button).",
    "# Other fields: rules, search, sessions, lessons, corrections, facts, topics, remStatus.",
    "query Context($query: String! = \"what should I know?\") {",
    "  context(query: $query, tokenBudget: 800, limit: 5) {",
    "    __typename",
    "    ... on ContextPayload {",
    "      totalTokens",
    "      items { kind score text provenance { project sessionId timestamp } }",
    "    }",
    "    ... on Forbidden { project message }",
    "    ... on InvalidInput { field message }",
    "  }",
    "}",
    ""
  ].join("\n");

  var form = document.getElementById("key-form");
  var input = document.getElementById("key-input");
  var forget = document.getElementById("key-forget");
  var status = document.getElementById("key-status");
  var welcome = document.getElementById("welcome");
  var root = document.getElementById("graphiql");
  var params = new URLSearchParams(window.location.search);
  var endpoint = window.location.pathname.replace(/\/+$/, "") || "/graphql";

  function storedKey() {
    return window.sessionStorage.getItem(STORE) || "";
  }

  function asGraphQL(status, text) {
    try {
      var body = JSON.parse(text);
      if (body && (body.data !== undefined || body.errors !== undefined)) {
        return body;
      }
      var detail = body && body.detail !== undefined ? body.detail : text;
      return { errors: [{ message: "HTTP " + status + ": " + JSON.stringify(detail) }] };
    } catch (e) {
      return { errors: [{ message: "HTTP " + status + ": " + text }] };
    }
  }

  function fetcher(graphQLParams, opts) {
    var headers = { "Content-Type": "application/json", "Accept": "application/json" };
    var extra = (opts && opts.headers) || {};
    Object.keys(extra).forEach(function (name) { headers[name] = extra[name]; });
    return window.fetch(endpoint, {
      method: "POST",
      headers: headers,
      body: JSON.stringify(graphQLParams),
      credentials: "omit",
      cache: "no-store"
    }).then(function (response) {
      return response.text().then(function (text) { return asGraphQL(response.status, text); });
    });
  }

  function render() {
    var key = storedKey();
    status.textContent = key
      ? "key set for this tab (sessionStorage)"
      : "no key yet: paste one to start";
    welcome.hidden = Boolean(key);
    root.hidden = !key;
    if (!key) {
      ReactDOM.unmountComponentAtNode(root);
      return;
    }
    ReactDOM.render(
      React.createElement(GraphiQL, {
        key: key, // a new key remounts GraphiQL with fresh headers
        fetcher: fetcher,
        storage: window.sessionStorage,
        headers: JSON.stringify({ Authorization: "Bearer " + key }, null, 2),
        isHeadersEditorEnabled: true,
        shouldPersistHeaders: false,
        defaultEditorToolsVisibility: "headers",
        query: params.get("query") || undefined,
        variables: params.get("variables") || undefined,
        defaultQuery: DEFAULT_QUERY
      }),
      root
    );
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var key = input.value.trim();
    input.value = "";
    if (key) {
      window.sessionStorage.setItem(STORE, key);
    }
    render();
  });
  forget.addEventListener("click", function () {
    window.sessionStorage.clear();
    render();
  });
  render();
})();

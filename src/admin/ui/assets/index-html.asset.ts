/** The dashboard's page: a sign-in form and the app shell; everything else is drawn by app.js. */
export const INDEX_HTML = String.raw`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>scim-bridge admin</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="assets/style.css" />
    <script type="module" src="assets/app.js"></script>
  </head>
  <body>
    <a class="skip" href="#main">Skip to content</a>
    <div id="live" class="visually-hidden" role="status" aria-live="polite"></div>
    <section id="signin" class="signin" aria-labelledby="signin-title" hidden>
      <form id="signin-form" method="post" autocomplete="off">
        <h1 id="signin-title">scim-bridge</h1>
        <p>
          Sign in with the bridge's admin token (<code>ADMIN_TOKEN</code>). It stays in this tab's
          session storage and is sent only to this bridge.
        </p>
        <label for="token">Admin token</label>
        <input id="token" name="token" type="password" required spellcheck="false" autocomplete="current-password" />
        <p id="signin-error" class="error" role="alert" hidden></p>
        <button type="submit">Sign in</button>
      </form>
    </section>
    <div id="app" hidden>
      <header class="top">
        <span class="brand">scim-bridge</span>
        <nav aria-label="Main">
          <ul>
            <li><a href="#/overview" data-nav="overview">Overview</a></li>
            <li><a href="#/syncs" data-nav="syncs">Syncs</a></li>
            <li><a href="#/failures" data-nav="failures">Failures</a></li>
            <li><a href="#/identity" data-nav="identity">Identities</a></li>
          </ul>
        </nav>
        <button id="signout" type="button" class="secondary">Sign out</button>
      </header>
      <div id="banner" class="banner" aria-live="polite"></div>
      <main id="main" tabindex="-1"></main>
    </div>
    <noscript><p>The dashboard needs JavaScript.</p></noscript>
  </body>
</html>
`;

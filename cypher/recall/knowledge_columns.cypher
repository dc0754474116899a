// fragment: yes
// params: known_at
// returns: kind, id, project, text, score, confidence, weight, effectiveness, reinforcement, last_seen, half_life_days, status, valid_from, valid_to, turn_ids, subject, predicate
// why: the one column list of a knowledge candidate (`KnowledgeHit` in
//      graph/repositories/recall.py): a new column is added here and there only. The including
//      query binds `n` (a Lesson, Correction, Fact, Topic, ReferenceLayer or Primer), `score` and
//      `turn_ids`; a property a label does not have reads as null. `valid_to` is the end as known
//      at $known_at (see recall.best_in_scope), so a fact closed after $known_at reads open.
RETURN CASE WHEN n:Lesson THEN 'lesson' WHEN n:Correction THEN 'correction'
            WHEN n:Fact THEN 'fact' WHEN n:Topic THEN 'topic'
            WHEN n:ReferenceLayer THEN 'reference_layer' ELSE 'primer' END AS kind,
       n.id AS id,
       n.project AS project,
       CASE WHEN n:Lesson THEN coalesce(n.title, '') + ': ' + coalesce(n.content, '')
            WHEN n:Correction THEN coalesce(n.rule_text, n.corrected_behaviour, '')
            WHEN n:Fact THEN coalesce(n.statement, '')
            WHEN n:Topic THEN coalesce(n.title, '')
            WHEN n:ReferenceLayer THEN coalesce(n.title, '') + ': ' + coalesce(n.text, '')
            ELSE coalesce(n.text, '') END AS text,
       score AS score,
       n.confidence AS confidence, n.weight AS weight, n.effectiveness AS effectiveness,
       n.reinforcement AS reinforcement, n.last_seen AS last_seen,
       n.half_life_days AS half_life_days,
       CASE WHEN n:Topic THEN n.phase WHEN n:Primer THEN n.period WHEN n:Fact THEN n.kind
            ELSE n.status END AS status,
       n.valid_from AS valid_from,
       coalesce(head([i IN range(0, size(coalesce(n.valid_to_until, [])) - 1)
                      WHERE n.valid_to_until[i] > $known_at | n.valid_to_was[i]]),
                n.valid_to) AS valid_to,
       turn_ids AS turn_ids,
       n.subject AS subject,
       n.predicate AS predicate

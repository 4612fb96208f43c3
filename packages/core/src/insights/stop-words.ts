/**
 * English stop words left out of comment phrases: articles, pronouns, auxiliaries, prepositions,
 * conjunctions and fillers that carry no theme on their own. A small list kept here (after the
 * common core of the NLTK and Snowball English lists) rather than a package: it is read once,
 * never changes at run time, and its words are the definition docs/insights.md refers to.
 * Negations (`not`, `no`, `never`) are deliberately kept out of it: "not helpful" is a theme.
 *
 * @module
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all also am an and any are aren't as at be because been before being below
   between both but by can can't could couldn't did didn't do does doesn't doing don't down during each few for from
   further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his how
   how's i i'd i'll i'm i've if in into is isn't it it's its itself just let's me more most mustn't my myself of off on
   once only or other ought our ours ourselves out over own same shan't she she'd she'll she's should shouldn't so some
   such than that that's the their theirs them themselves then there there's these they they'd they'll they're they've
   this those through to too under until up very was wasn't we we'd we'll we're we've were weren't what what's when
   when's where where's which while who who's whom why why's will with won't would wouldn't you you'd you'll you're
   you've your yours yourself yourselves get got one really much even still thing things like`
    .split(/\s+/)
    .filter((w) => w !== ''),
);

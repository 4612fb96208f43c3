/// <reference lib="dom" />
/**
 * `@feedloop/widget`: the `<feedloop-feedback>` web component. Importing this module defines it.
 */
import { FeedloopFeedback } from './feedloop-feedback.js';

export { FeedloopFeedback };
if (!customElements.get('feedloop-feedback')) customElements.define('feedloop-feedback', FeedloopFeedback);

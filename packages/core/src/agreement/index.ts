/** Agreement and calibration statistics (issues 27 and 28): pure, each bootstrappable. */
export { DEFAULT_RESAMPLES, MIN_RESAMPLES, bootstrapEstimate, bootstrapEstimates, percentile, resamplesWithin, type BootstrapOptions, type Estimate } from './bootstrap.js';
export { categoriesOf, compareCategories, type Category, type MaybeCategory } from './categories.js';
export { cohenKappa, cohenKappaStatistic, kappaOfTable, type RatingPair } from './cohen-kappa.js';
export { confusionMatrix, type ConfusionMatrix } from './confusion-matrix.js';
export { fleissKappa, fleissKappaStatistic } from './fleiss-kappa.js';
export {
  judgeCalibration,
  type CalibrationDisagreement,
  type CalibrationFigures,
  type CalibrationKind,
  type CalibrationOptions,
  type CalibrationPair,
  type JudgeCalibration,
} from './judge-calibration.js';
export { krippendorffAlpha, krippendorffAlphaStatistic, type AlphaLevel } from './krippendorff-alpha.js';
export { majorityLabel, median } from './majority.js';
export { percentAgreement, percentAgreementStatistic } from './percent-agreement.js';
export { positionBias, type PositionBias } from './position-bias.js';
export {
  queueAgreement,
  type AgreementReview,
  type PairKappa,
  type Proportion,
  type QueueAgreement,
  type ReviewerAgreement,
  type ScoreAlpha,
} from './queue-agreement.js';
export { DEFAULT_SEED, seededIndexDraw } from './seeded-random.js';
export { PAIRWISE_SIDES, agreementReviewOf, type StoredReviewFacts } from './stored-review.js';
export { spearmanRho, spearmanStatistic } from './spearman.js';
export { evaluate, summedStatistic, type SummedStatistic, type UnitRow } from './summed-statistic.js';
export { weightedKappa, weightedKappaStatistic, type KappaWeights } from './weighted-kappa.js';

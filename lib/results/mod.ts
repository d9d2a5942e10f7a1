/**
 * The shape of the results file (`latest.json`), schema version 1, checked
 * by `results/schema.json`: the face over the modules that hold its parts.
 *
 * - `configuration.ts`: what a configuration is and its id;
 * - `figures.ts`: status, percentiles, series, spreads;
 * - `load_record.ts`: steady load, the max-rate search, idle;
 * - `fedify2.ts`: ordering keys, `getDepth()`, dead inboxes;
 * - `stages_record.ts`: where a delivery's time goes, what limits a row, the
 *   model's prediction;
 * - `deployment_record.ts`: the app's cores and its queue server's distance;
 * - `agents_record.ts`: the agents that ran a row's roles on other hosts,
 *   their clocks, and the workers' CPU limit;
 * - `run.ts`: one run of a configuration;
 * - `environment_record.ts`: the machine, the commit, the calibrations;
 * - `document.ts`: the document, its parameters and its results.
 *
 * @module
 */
export {
  BASELINE_DRIVER,
  configurationId,
  type FanoutMode,
  GENERATOR_DRIVER,
  type Implementation,
  type ImplementationOrigin,
  type InboxProfile,
  type LatencyRange,
  type OrderingKey,
  type ParallelImpl,
  type RuntimeIdentity,
  type RuntimeName,
  type SourceRefRecord,
  type Workload,
} from "./configuration.ts";
export {
  type LimitedByRecord,
  type LimitingResource,
  type PerDelivery,
  perDelivery,
  type PredictionBounds,
  type StageFigures,
  type StageName,
  STAGES,
  type StageSpec,
  stageSpec,
  type StagesRecord,
} from "./stages_record.ts";
export {
  type Percentiles,
  type Series,
  type Spread,
  type Status,
} from "./figures.ts";
export {
  type ArrivalPattern,
  type IdleProcess,
  type IdleRecord,
  type LoadParams,
  type LoadRecord,
  type MaxRateProbe,
  type MaxRateRecord,
} from "./load_record.ts";
export {
  type DelayedRecord,
  type DepthRecord,
  type OrderingRecord,
} from "./fedify2.ts";
export {
  type AgentClockRecord,
  type AgentRecord,
  type AgentsRecord,
  type ClockEstimate,
  type WorkerCpuLimitRecord,
} from "./agents_record.ts";
export {
  type DeploymentRecord,
  type PinningRecord,
  type ProxyRecord,
  type ProxyTraffic,
  type RoundTripsRecord,
} from "./deployment_record.ts";
export {
  type CrashRecord,
  type EstimateRecord,
  type LogSummary,
  type ProcessRecord,
  type RestartRecord,
  type RunResult,
  type ServerRecord,
  type Timeline,
} from "./run.ts";
export {
  type AppSignRate,
  type Calibration,
  type CalibrationPoint,
  type Commit,
  type Environment,
  GIT_NOT_FOUND,
  NOT_A_GIT_CHECKOUT,
  type RateSpread,
  UNKNOWN,
} from "./environment_record.ts";
export {
  type ConfigurationResult,
  type Outlier,
  READABLE_SCHEMA_VERSIONS,
  type ResultsDocument,
  SCHEMA_VERSION,
  type SuiteParams,
} from "./document.ts";

#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace hetplan {
struct Problem;
struct Plan;
struct Evaluation;
struct ServingFigures;
struct TimeInterval;
struct PredictionInterval;
} // namespace hetplan

namespace hetplan::cli {

// Human output: readable tables of a plan, its estimate and its memory, for a terminal.
void printPlan(std::ostream &out, const Problem &problem, const Plan &plan);
void printEvaluation(std::ostream &out, const Problem &problem, const Evaluation &evaluation);
// Inference under load: attainment, latency percentiles, highest sustainable rate.
void printServing(std::ostream &out, const ServingFigures &serving);

// At most kShownErrors of `lines`, then "... and N more" when there were more.
inline constexpr std::size_t kShownErrors = 20;
std::vector<std::string> firstLines(const std::vector<std::string> &lines);

// Pads to `width` characters as a terminal shows them: UTF-8 continuation bytes take no
// column (layer ranges and intervals carry an en dash).
std::string padRight(std::string text, size_t width);
std::string padLeft(std::string text, size_t width);

// "12.3 s", "845 ms", "3.1 µs": a duration with a unit a person reads at a glance.
std::string formatSeconds(double seconds);
// "14.2–18.9 s": an interval in the unit of its upper end.
std::string formatRange(const TimeInterval &interval);
// "16.400 s ± 1.100 (90 %)", or "16.400 s (90 %: 14.2–18.9 s)" when the sides differ by more
// than a tenth: a prediction with its interval (docs/cost-models.md, "Prediction intervals").
std::string formatWithInterval(double centreS, const PredictionInterval &interval);
// "GPU type A100-40G; link class roce": what the plan uses that nothing measured.
std::string extrapolationText(const PredictionInterval &interval);

} // namespace hetplan::cli

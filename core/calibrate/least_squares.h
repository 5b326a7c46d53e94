#pragma once

#include <functional>
#include <stop_token>
#include <vector>

namespace hetplan {

// Levenberg–Marquardt over a small parameter vector (a dozen figures at most) inside a box,
// with a forward-difference Jacobian and parameters at a bound held there while descent pushes
// them out: what calibration needs, and nothing more general.
struct LeastSquaresProblem
{
    // Residuals at x; the same length for every x.
    std::function<std::vector<double>(const std::vector<double> &)> residuals;
    std::vector<double> lower; // per parameter, the box the search stays in
    std::vector<double> upper;
    // Checked between iterations: a stop ends the search where it is.
    std::stop_token stop;
};

struct LeastSquaresFit
{
    std::vector<double> x;
    std::vector<double> residuals;
    // Jacobian at x, row per residual.
    std::vector<std::vector<double>> jacobian;
    // Standard error per parameter, s²·(JᵀJ)⁻¹ on its diagonal with s² = RSS / (m − p);
    // NaN at a bound, where the runs cannot separate it from the others (a singular
    // direction) or where there are no more residuals than parameters.
    std::vector<double> standardErrors;
    int iterations = 0;
};

// x0 must lie in the box. Parameters whose Jacobian column is zero at x0 are left where they
// are (their standard error is NaN).
LeastSquaresFit fitLeastSquares(const LeastSquaresProblem &problem, std::vector<double> x0);

double sumOfSquares(const std::vector<double> &residuals);

// The forward-difference Jacobian the fit uses, at x (row per residual).
std::vector<std::vector<double>> forwardJacobian(const LeastSquaresProblem &problem,
                                                 const std::vector<double> &x);

} // namespace hetplan

#include "core/calibrate/least_squares.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hetplan {
namespace {

using Matrix = std::vector<std::vector<double>>;

constexpr double kStep = 1e-4;           // forward difference in the (log) parameters
constexpr double kZeroColumn = 1e-9;     // a column this small: no residual depends on it
constexpr double kSingularPivot = 1e-10; // relative to the largest diagonal entry
constexpr int kMaxIterations = 60;

Matrix jacobianAt(const LeastSquaresProblem &problem, const std::vector<double> &x,
                  const std::vector<double> &r)
{
    Matrix j(r.size(), std::vector<double>(x.size(), 0.0));
    for (size_t k = 0; k < x.size(); ++k) {
        std::vector<double> moved = x;
        // Step inwards at the upper bound so the difference stays inside the box.
        const double h = moved[k] + kStep > problem.upper[k] ? -kStep : kStep;
        moved[k] += h;
        const std::vector<double> rk = problem.residuals(moved);
        for (size_t i = 0; i < r.size(); ++i)
            j[i][k] = (rk[i] - r[i]) / h;
    }
    return j;
}

// Solves a·x = b for symmetric positive semi-definite a by Gauss–Jordan with partial pivoting;
// returns false when a pivot vanishes. `inverse` receives a⁻¹ when asked for.
bool solve(Matrix a, std::vector<double> &b, Matrix *inverse)
{
    const size_t n = a.size();
    Matrix inv(n, std::vector<double>(n, 0.0));
    for (size_t i = 0; i < n; ++i)
        inv[i][i] = 1;
    double scale = 0;
    for (size_t i = 0; i < n; ++i)
        scale = std::max(scale, std::abs(a[i][i]));
    for (size_t c = 0; c < n; ++c) {
        size_t pivot = c;
        for (size_t r = c + 1; r < n; ++r)
            if (std::abs(a[r][c]) > std::abs(a[pivot][c]))
                pivot = r;
        if (std::abs(a[pivot][c]) <= kSingularPivot * scale || scale == 0)
            return false;
        std::swap(a[c], a[pivot]);
        std::swap(inv[c], inv[pivot]);
        std::swap(b[c], b[pivot]);
        const double d = a[c][c];
        for (size_t k = 0; k < n; ++k) {
            a[c][k] /= d;
            inv[c][k] /= d;
        }
        b[c] /= d;
        for (size_t r = 0; r < n; ++r) {
            if (r == c || a[r][c] == 0)
                continue;
            const double f = a[r][c];
            for (size_t k = 0; k < n; ++k) {
                a[r][k] -= f * a[c][k];
                inv[r][k] -= f * inv[c][k];
            }
            b[r] -= f * b[c];
        }
    }
    if (inverse)
        *inverse = std::move(inv);
    return true;
}

// JᵀJ and Jᵀr over the free parameters.
void normalEquations(const Matrix &j, const std::vector<double> &r, const std::vector<size_t> &free,
                     Matrix &jtj, std::vector<double> &jtr)
{
    const size_t p = free.size();
    jtj.assign(p, std::vector<double>(p, 0.0));
    jtr.assign(p, 0.0);
    for (size_t i = 0; i < r.size(); ++i)
        for (size_t a = 0; a < p; ++a) {
            jtr[a] += j[i][free[a]] * r[i];
            for (size_t b = 0; b < p; ++b)
                jtj[a][b] += j[i][free[a]] * j[i][free[b]];
        }
}

bool atUpper(const LeastSquaresProblem &problem, const std::vector<double> &x, size_t k)
{
    return x[k] >= problem.upper[k] - 1e-9;
}

bool atLower(const LeastSquaresProblem &problem, const std::vector<double> &x, size_t k)
{
    return x[k] <= problem.lower[k] + 1e-9;
}

} // namespace

std::vector<std::vector<double>> forwardJacobian(const LeastSquaresProblem &problem,
                                                 const std::vector<double> &x)
{
    return jacobianAt(problem, x, problem.residuals(x));
}

double sumOfSquares(const std::vector<double> &residuals)
{
    double sum = 0;
    for (double r : residuals)
        sum += r * r;
    return sum;
}

LeastSquaresFit fitLeastSquares(const LeastSquaresProblem &problem, std::vector<double> x0)
{
    LeastSquaresFit fit;
    fit.x = std::move(x0);
    fit.residuals = problem.residuals(fit.x);
    fit.jacobian = jacobianAt(problem, fit.x, fit.residuals);
    const size_t n = fit.x.size();
    std::vector<size_t> free;
    for (size_t k = 0; k < n; ++k) {
        double column = 0;
        for (const auto &row : fit.jacobian)
            column += row[k] * row[k];
        if (std::sqrt(column) > kZeroColumn)
            free.push_back(k);
    }

    double cost = sumOfSquares(fit.residuals);
    double lambda = 1e-3;
    bool converged = false;
    for (int iteration = 0; iteration < kMaxIterations && !free.empty() && !converged
                            && !problem.stop.stop_requested();
         ++iteration) {
        fit.iterations = iteration + 1;
        Matrix jtj;
        std::vector<double> jtr;
        normalEquations(fit.jacobian, fit.residuals, free, jtj, jtr);
        // A parameter at a bound that descent would push further out stays there this step.
        std::vector<size_t> active;
        for (size_t a = 0; a < free.size(); ++a)
            if (!(atUpper(problem, fit.x, free[a]) && jtr[a] < 0)
                && !(atLower(problem, fit.x, free[a]) && jtr[a] > 0))
                active.push_back(free[a]);
        if (active.empty())
            break;
        normalEquations(fit.jacobian, fit.residuals, active, jtj, jtr);
        bool improved = false;
        while (lambda < 1e12 && !improved) {
            Matrix damped = jtj;
            std::vector<double> step = jtr;
            for (size_t a = 0; a < active.size(); ++a)
                damped[a][a] += lambda * std::max(jtj[a][a], 1e-12);
            if (!solve(damped, step, nullptr)) {
                lambda *= 10;
                continue;
            }
            std::vector<double> x = fit.x;
            for (size_t a = 0; a < active.size(); ++a)
                x[active[a]] = std::clamp(x[active[a]] - step[a], problem.lower[active[a]],
                                          problem.upper[active[a]]);
            std::vector<double> r = problem.residuals(x);
            const double trial = sumOfSquares(r);
            if (trial < cost) {
                improved = true;
                const double gain = (cost - trial) / std::max(cost, 1e-300);
                fit.x = std::move(x);
                fit.residuals = std::move(r);
                cost = trial;
                lambda = std::max(lambda / 3, 1e-9);
                converged = gain < 1e-10;
            } else {
                lambda *= 4;
            }
        }
        if (!improved)
            break;
        fit.jacobian = jacobianAt(problem, fit.x, fit.residuals);
    }
    fit.jacobian = jacobianAt(problem, fit.x, fit.residuals);

    fit.standardErrors.assign(n, std::numeric_limits<double>::quiet_NaN());
    // A parameter held at a bound has no error bar of its own; the others are estimated
    // with it fixed there.
    std::erase_if(
        free, [&](size_t k) { return atUpper(problem, fit.x, k) || atLower(problem, fit.x, k); });
    const size_t m = fit.residuals.size();
    if (free.empty() || m <= free.size())
        return fit;
    Matrix jtj;
    std::vector<double> jtr;
    normalEquations(fit.jacobian, fit.residuals, free, jtj, jtr);
    Matrix inverse;
    if (!solve(jtj, jtr, &inverse))
        return fit;
    const double variance = cost / double(m - free.size());
    for (size_t a = 0; a < free.size(); ++a)
        fit.standardErrors[free[a]] = std::sqrt(std::max(variance * inverse[a][a], 0.0));
    return fit;
}

} // namespace hetplan
